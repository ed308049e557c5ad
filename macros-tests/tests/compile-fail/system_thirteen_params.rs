use typed_ecs::prelude::*;

pub struct A;
pub struct B;
pub struct C;
pub struct D;
pub struct E;
pub struct F;
pub struct G;
pub struct H;
pub struct I;
pub struct J;
pub struct K;
pub struct L;
pub struct M;

world! {
    pub struct Big<A, B, C, D, E, F, G, H, I, J, K, L, M>;
}

#[allow(clippy::too_many_arguments)]
fn thirteen(
    _: &SparseMap<A>,
    _: &SparseMap<B>,
    _: &SparseMap<C>,
    _: &SparseMap<D>,
    _: &SparseMap<E>,
    _: &SparseMap<F>,
    _: &SparseMap<G>,
    _: &SparseMap<H>,
    _: &SparseMap<I>,
    _: &SparseMap<J>,
    _: &SparseMap<K>,
    _: &SparseMap<L>,
    _: &SparseMap<M>,
) {
}

fn main() {
    Schedule::<Big>::new().add_system(thirteen);
}
