// The token the plumbing's methods take cannot be made outside typed_ecs,
// so none of them can be called.
fn main() {
    let _token = typed_ecs::__private::Token(());
}
