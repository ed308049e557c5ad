//! Comparison benchmarks for typed_ecs live here (see the performance issue).
//! For now this crate only proves the workspace member builds against the
//! library; the criterion suites come with the benchmark work.

#![forbid(unsafe_code)]

#[cfg(test)]
mod tests {
    use typed_ecs::prelude::*;

    struct Position(f32);
    world! { struct BenchWorld<Position>; }

    #[test]
    fn library_links() {
        let mut world = BenchWorld::new();
        let e = world.spawn_with((Position(1.0),));
        assert_eq!(world.get::<Position>(e).map(|p| p.0), Some(1.0));
    }
}
