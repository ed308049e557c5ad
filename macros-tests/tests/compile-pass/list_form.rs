use typed_ecs::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct Moveable(f32, f32);
#[derive(Debug, Clone, PartialEq)]
pub struct Nameable(String);
#[derive(Debug, Clone, PartialEq)]
pub struct HttpServer;

world! {
    /// Forwarded doc comment.
    #[derive(Debug, Clone)]
    pub struct CatWorld<Moveable, Nameable, HttpServer,>;
}

fn main() {
    let mut world = CatWorld::default();
    let e = world.spawn_with((Moveable(1.0, 2.0), Nameable("Kitty".into())));
    world.add(e, HttpServer);
    let copy = world.clone();
    assert_eq!(copy.moveable.get(e), Some(&Moveable(1.0, 2.0)));
    assert_eq!(copy.nameable.len(), 1);
    assert_eq!(copy.http_server.len(), 1);
    assert_eq!(world.component_names(), ["Moveable", "Nameable", "HttpServer"]);
    println!("{world:?}");
}
