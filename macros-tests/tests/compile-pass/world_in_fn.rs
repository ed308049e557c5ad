use typed_ecs::prelude::*;

fn main() {
    struct Ball(u32);

    world! {
        struct Local<Ball>;
    }

    let mut world = Local::new();
    let e = world.spawn_with((Ball(3),));
    assert_eq!(world.get::<Ball>(e).map(|b| b.0), Some(3));
}
