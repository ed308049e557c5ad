// Plugins included in both forms of `world!`, with the world's own
// resources, tracked components and groups, in any order of the sections;
// a plugin over another's components; the plugin's trait as a bound.
use physics::{Bounce, Bouncy, Expiry, Physics, Pos, Vel};
use typed_ecs::prelude::*;

pub struct Health(pub i32);
#[derive(Default)]
pub struct Score(pub u32);

world! {
    pub struct Listed<Health>;
    plugins (physics::Physics, physics::Bounce, physics::Expiry);
    tracked (physics::Vel, Health);
    resources { score: Score }
}

world! {
    pub struct Fields { health: Health }
    group (physics::Pos, physics::Vel);
    plugins (physics::Physics, physics::Bounce);
}

// A world's own hooks beside a plugin's (`Expiry` counts each `Ttl` that
// goes): the world's lines run first, then the plugin's.
world! {
    pub struct Hooked<Health>;
    plugins (physics::Expiry);
    resources { gone: Score }
    hooks { on_remove(Health) => health_gone; }
}

fn health_gone(gone: OnRemove<Health>, score: &mut Score) {
    score.0 += u32::try_from(gone.len()).unwrap_or(u32::MAX);
}

fn drop_one<W: Physics + Bounce>(world: &mut W) -> Entity {
    world.spawn_with((Pos(1.0), Vel(0.0), Bouncy(2.0)))
}

fn main() {
    let mut listed = Listed::new();
    let mut fields = Fields::new();
    let a = drop_one(&mut listed);
    let b = drop_one(&mut fields);

    let mut schedule = Schedule::<Listed>::new();
    Physics::add_systems(&mut schedule);
    Bounce::add_systems(&mut schedule);
    Expiry::add_systems(&mut schedule);
    schedule.run(&mut listed);
    let mut schedule = Schedule::<Fields>::new();
    Physics::add_systems(&mut schedule);
    Bounce::add_systems(&mut schedule);
    schedule.run(&mut fields);

    // Fell to the ground, bounced back up at 2 m a tick.
    assert_eq!(listed.get::<Vel>(a), Some(&Vel(2.0)));
    assert_eq!(fields.get::<Vel>(b), Some(&Vel(2.0)));
    assert_eq!((listed.score.0, listed.expired().0), (0, 0));
    assert_eq!(fields.gravity().0, 1.0);

    let mut hooked = Hooked::new();
    let e = hooked.spawn_with((Health(1), physics::Ttl(0)));
    hooked.despawn(e);
    assert_eq!((hooked.gone.0, hooked.expired().0), (1, 1));
}
