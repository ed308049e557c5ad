// A system that takes `&mut Events<Damage>` (to send directly) shares a
// stage with one that reads `&Events<Damage>`: a conflict, named.
use typed_ecs::prelude::*;

pub struct Pos(pub f32);
pub struct Damage(pub u32);

world! {
    pub struct Game<Pos>;
    events { damage: Damage }
}

fn direct(damage: &mut Events<Damage>) {
    damage.send(Damage(1));
}
fn read(damage: &Events<Damage>, inbox: &mut Reader<Damage>) {
    let _ = inbox.read(damage).count();
}

fn main() {
    Schedule::<Game>::new().add_systems((direct, read));
}
