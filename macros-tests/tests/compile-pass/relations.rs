// Relations in both forms of `world!`, beside resources, hooks and tracked
// components, in any order; the sides as system parameters.
use typed_ecs::prelude::*;

pub struct Name(pub &'static str);
pub struct ChildOf;
pub struct Targets(pub u32);
#[derive(Default)]
pub struct Count(pub usize);

world! {
    pub struct Scene<Name>;
    relations {
        child_of: ChildOf -> children [despawn, tree];
        targets: Targets -> targeted_by;
    }
    resources { count: Count }
    tracked (Name);
}

world! {
    pub struct Fields { name: Name }
    resources { count: Count }
    relations { owns: typed_ecs_marker::Owns -> owned_by [deny] ; }
}

mod typed_ecs_marker {
    pub struct Owns;
}

fn count_children(children: &Sources<ChildOf>, links: &Links<ChildOf>, count: &mut Count) {
    count.0 = links.iter().filter(|(_, t, _)| !children.of(*t).is_empty()).count();
}

fn main() {
    let mut scene = Scene::new();
    let (ship, gun) = (scene.spawn(), scene.spawn());
    scene.relate(gun, ChildOf, ship).unwrap();
    let mut schedule = Schedule::new();
    schedule.add_system(count_children);
    schedule.run(&mut scene);
    assert_eq!(scene.count.0, 1);
    let mut fields = Fields::new();
    let (a, b) = (fields.spawn(), fields.spawn());
    fields.relate(a, typed_ecs_marker::Owns, b).unwrap();
    assert!(fields.try_despawn(b).is_err());
}
