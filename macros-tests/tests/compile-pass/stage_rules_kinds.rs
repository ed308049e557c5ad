// The rules as trait bounds tell kinds of targets apart: a component and a
// resource of the same index, the allocator, and each system's own state
// (`Commands`, `Local`, `Seen`) never conflict; readers share; a stage of 8
// members of 8 parameters each is checked in full.
use typed_ecs::prelude::*;

pub struct A(pub u32);
pub struct B(pub u32);
pub struct C(pub u32);
pub struct D(pub u32);
pub struct E(pub u32);
pub struct F(pub u32);
pub struct G(pub u32);
pub struct H(pub u32);
#[derive(Default)]
pub struct R0(pub u32);
#[derive(Default)]
pub struct R1(pub u32);

world! {
    pub struct Game<A, B, C, D, E, F, G, H>;
    resources { r0: R0, r1: R1 }
    tracked (H);
}

// `A` is component #0 and `R0` resource #0: different targets.
fn write_a(a: &mut SparseMap<A>, alive: &EntityAllocator, commands: &mut Commands<Game>) {
    let _ = (a, alive, commands);
}
fn write_r0(r0: &mut R0, alive: &EntityAllocator, commands: &mut Commands<Game>) {
    r0.0 += 1;
    let _ = (alive, commands);
}
fn watch_h(h: &SparseMap<H, Tracked>, seen: &mut Seen<H>, frames: &mut Local<u32>) {
    **frames += 1;
    let _ = seen.removed(h).len();
}

macro_rules! reader {
    ($name:ident, $w:ty) => {
        #[allow(clippy::too_many_arguments)]
        fn $name(
            w: &mut SparseMap<$w>,
            _: &SparseMap<H, Tracked>,
            _: &R1,
            _: &EntityAllocator,
            _: &mut Commands<Game>,
            _: &mut Local<u8>,
            _: &mut Seen<H>,
            _: &mut Local<u16>,
        ) {
            w.values_mut().iter_mut().for_each(|v| v.0 += 1);
        }
    };
}
reader!(b, B);
reader!(c, C);
reader!(d, D);
reader!(e, E);
reader!(f, F);
reader!(g, G);

// Twelve parameters, the most a system takes.
#[allow(clippy::too_many_arguments)]
fn twelve(
    a: &SparseMap<A>,
    b: &SparseMap<B>,
    c: &SparseMap<C>,
    d: &SparseMap<D>,
    e: &SparseMap<E>,
    f: &SparseMap<F>,
    g: &SparseMap<G>,
    h: &SparseMap<H, Tracked>,
    r0: &mut R0,
    r1: &R1,
    _: &EntityAllocator,
    count: &mut Local<usize>,
) {
    **count = a.len() + b.len() + c.len() + d.len() + e.len() + f.len() + g.len() + h.len();
    r0.0 += r1.0 + 1;
}

fn main() {
    let mut world = Game::new();
    world.spawn_with((A(0), B(0), C(0), D(0), E(0), F(0), G(0), H(0)));
    let mut schedule = Schedule::<Game>::new();
    schedule
        .add_systems((write_a, write_r0, watch_h))
        .add_systems((b, c, d, e, f, g, write_a, |_: &R1, _: &SparseMap<H, Tracked>| {}))
        .add_sync_point()
        .add_systems((twelve, |_: &SparseMap<A>| {}));
    schedule.run(&mut world);
    assert_eq!(world.r0.0, 2);
    assert_eq!(world.b.values()[0].0, 1);
}
