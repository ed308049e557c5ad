// What a fetch does with its storages is crate-private: a bound
// `F: Fetch<'w>` reaches none of it.
use typed_ecs::Fetch;

fn fetch_internals<'w, F: Fetch<'w>>(fetch: F) {
    let _rows = fetch.into_rows(1000);
}

fn main() {}
