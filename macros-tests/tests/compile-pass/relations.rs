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
    relations {
        owns: typed_ecs_marker::Owns -> owned_by [deny] ;
        likes: Likes -> liked_by [despawn, many];
    }
}

pub struct Likes(pub u8);

mod typed_ecs_marker {
    pub struct Owns;
}

fn count_children(children: &Sources<ChildOf>, links: &Links<ChildOf>, count: &mut Count) {
    count.0 = links.iter().filter(|(_, t, _)| !children.of(*t).is_empty()).count();
}

fn count_likes(likes: &ManyLinks<Likes>, names: &SparseMap<Name>, count: &mut Count) {
    count.0 = names.entities().iter().map(|&e| likes.targets(e).count()).sum();
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
    let (c, d) = (fields.spawn_with((Name("c"),)), fields.spawn());
    fields.relate(c, Likes(1), d).unwrap();
    fields.relate(c, Likes(2), a).unwrap();
    let mut schedule = Schedule::new();
    schedule.add_system(count_likes);
    schedule.run(&mut fields);
    assert_eq!(fields.count.0, 2);
    fields.despawn(d); // `despawn`: its source `c` goes too
    assert!(!fields.is_alive(c) && fields.liked_by.of(a).is_empty());
}
