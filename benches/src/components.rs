//! The component types every implementation stores, and the math kernels
//! every implementation runs, so that only the ECS differs between them.
//!
//! The types are plain data. Peer crates that need a trait on their
//! components get it here: bevy through `#[derive(Component)]` (table
//! storage, bevy's default), specs with `VecStorage`, shipyard untracked.
//! hecs, sparsey and typed_ecs need nothing.

/// A 4×4 matrix, `m[row][column]`.
pub type Mat4 = [[f32; 4]; 4];
/// A 3-vector.
pub type Vec3 = [f32; 3];

/// A 4×4 transform matrix.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Transform(pub Mat4);

/// A position.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Position(pub Vec3);

/// A rotation (unused by the kernels: it only makes the entities wider).
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Rotation(pub Vec3);

/// A velocity.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Velocity(pub Vec3);

/// The payload of `fragmented_iter` and `sparse_spread`.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Data(pub f32);

/// The entity a follower of `follow_target` steers towards: `E` is each
/// crate's handle type.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Target<E: Send + Sync + 'static>(pub E);

impl<E: Send + Sync + 'static> shipyard::Component for Target<E> {
    type Tracking = shipyard::track::Untracked;
}

impl<E: Send + Sync + 'static> specs::Component for Target<E> {
    type Storage = specs::VecStorage<Self>;
}

/// A 2D affine transform, `[a, b, c, d, tx, ty]`: a point `(x, y)` goes to
/// `(a·x + c·y + tx, b·x + d·y + ty)`. The transform of the hierarchy
/// scenarios (`transform_propagation`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine2(pub [f32; 6]);

/// An entity's transform relative to its parent (to the world for a root).
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Local2(pub Affine2);

/// An entity's transform relative to the world: its parent's global
/// composed with its own local, written by `transform_propagation`.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Global2(pub Affine2);

/// Calls `$callback!(A, B, …, Z)`: the 26 letter components in order.
#[macro_export]
macro_rules! letters {
    ($callback:ident) => {
        $callback!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
    };
}

macro_rules! letter_types {
    ($($letter:ident),*) => {
        $(
            #[doc = concat!("The letter component `", stringify!($letter), "` (an `f32`).")]
            #[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
            pub struct $letter(pub f32);
        )*
    };
}
letters!(letter_types);

macro_rules! peer_traits {
    ($($ty:ident),*) => {
        $(
            impl shipyard::Component for $ty {
                type Tracking = shipyard::track::Untracked;
            }
            impl specs::Component for $ty {
                type Storage = specs::VecStorage<Self>;
            }
        )*
    };
}
peer_traits!(Transform, Position, Rotation, Velocity, Data);
letters!(peer_traits);

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

/// The unit x vector.
pub const UNIT_X: Vec3 = [1.0, 0.0, 0.0];

/// The identity matrix.
pub const IDENTITY: Mat4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// The entity of `simple_insert`, `simple_iter` and `scaling`: an identity
/// transform and unit-x position, rotation and velocity (as in
/// ecs_bench_suite).
pub fn std_entity() -> (Transform, Position, Rotation, Velocity) {
    (
        Transform(IDENTITY),
        Position(UNIT_X),
        Rotation(UNIT_X),
        Velocity(UNIT_X),
    )
}

/// The entity of `heavy_compute`: a rotation of 1.2 rad about x (as in
/// ecs_bench_suite), a unit-y position (ecs_bench_suite's unit x is left
/// unchanged by that rotation, so a run would change nothing the tests
/// could see), unit-x rotation and velocity.
pub fn heavy_entity() -> (Transform, Position, Rotation, Velocity) {
    (
        Transform(rotation_x(1.2)),
        Position([0.0, 1.0, 0.0]),
        Rotation(UNIT_X),
        Velocity(UNIT_X),
    )
}

/// The `i`-th entity of `random_get`, `random_get_many`, `follow_target`
/// and `despawn_churn`: its position's x is `i` modulo 4096, so sums of x
/// stay exact in `f64` in any order.
pub fn moving_entity(i: usize) -> (Position, Velocity) {
    (Position([(i % 4096) as f32, 0.0, 0.0]), Velocity(UNIT_X))
}

// ---------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------

/// `simple_iter`: position += velocity.
#[inline]
pub fn integrate(position: &mut Position, velocity: &Velocity) {
    for (p, v) in position.0.iter_mut().zip(velocity.0) {
        *p += v;
    }
}

/// `follow_target`: the velocity that closes an eighth of the gap from
/// `position` to `target` each step. An eighth, a power of two, keeps
/// every velocity exact (positions are small integers), so sums of them
/// agree in any order.
#[inline]
pub fn follow(velocity: &mut Velocity, position: &Position, target: &Position) {
    for ((v, p), t) in velocity.0.iter_mut().zip(position.0).zip(target.0) {
        *v = (t - p) * 0.125;
    }
}

/// `heavy_compute`: inverts the matrix 100 times, then moves the position
/// by it (as a direction, `w = 0`).
#[inline]
pub fn heavy(position: &mut Position, transform: &mut Transform) {
    invert_100(transform);
    apply_transform(position, transform);
}

/// The first half of [`heavy`]: inverts the matrix 100 times.
#[inline]
pub fn invert_100(transform: &mut Transform) {
    for _ in 0..100 {
        transform.0 = invert(&transform.0).expect("an invertible matrix");
    }
}

/// The second half of [`heavy`]: position = transform × position (`w = 0`).
#[inline]
pub fn apply_transform(position: &mut Position, transform: &Transform) {
    position.0 = transform_vector(&transform.0, position.0);
}

/// `fragmented_iter` and `sparse_spread`: data *= 2.
#[inline]
pub fn double(data: &mut Data) {
    data.0 *= 2.0;
}

/// `transform_propagation`: `parent ∘ local`, the transform that applies
/// `local`, then `parent`. The same operations in the same order for every
/// implementation (Rust fuses no multiply-add on its own), so their
/// results are equal to the bit.
#[inline]
pub fn compose(parent: &Affine2, local: &Affine2) -> Affine2 {
    let [pa, pb, pc, pd, ptx, pty] = parent.0;
    let [la, lb, lc, ld, ltx, lty] = local.0;
    Affine2([
        pa * la + pc * lb,
        pb * la + pd * lb,
        pa * lc + pc * ld,
        pb * lc + pd * ld,
        pa * ltx + pc * lty + ptx,
        pb * ltx + pd * lty + pty,
    ])
}

/// A rotation of `angle` radians followed by a translation by `(x, y)`.
pub fn affine(angle: f32, x: f32, y: f32) -> Affine2 {
    let (s, c) = angle.sin_cos();
    Affine2([c, s, -s, c, x, y])
}

/// A rotation of `angle` radians about the x axis.
pub fn rotation_x(angle: f32) -> Mat4 {
    let (s, c) = angle.sin_cos();
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, c, -s, 0.0],
        [0.0, s, c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// `m × (v, 0)`: the vector transformed as a direction.
#[inline]
pub fn transform_vector(m: &Mat4, v: Vec3) -> Vec3 {
    let row = |r: &[f32; 4]| r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
    [row(&m[0]), row(&m[1]), row(&m[2])]
}

/// The inverse of `m` by cofactors (2×2 sub-determinants of the top and
/// bottom row pairs), or `None` when `m` is singular.
#[inline]
pub fn invert(m: &Mat4) -> Option<Mat4> {
    let [[a00, a01, a02, a03], [a10, a11, a12, a13], [a20, a21, a22, a23], [a30, a31, a32, a33]] =
        *m;

    // 2×2 determinants of rows 0-1 …
    let s0 = a00 * a11 - a10 * a01;
    let s1 = a00 * a12 - a10 * a02;
    let s2 = a00 * a13 - a10 * a03;
    let s3 = a01 * a12 - a11 * a02;
    let s4 = a01 * a13 - a11 * a03;
    let s5 = a02 * a13 - a12 * a03;
    // … and of rows 2-3.
    let c5 = a22 * a33 - a32 * a23;
    let c4 = a21 * a33 - a31 * a23;
    let c3 = a21 * a32 - a31 * a22;
    let c2 = a20 * a33 - a30 * a23;
    let c1 = a20 * a32 - a30 * a22;
    let c0 = a20 * a31 - a30 * a21;

    let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;

    Some([
        [
            (a11 * c5 - a12 * c4 + a13 * c3) * inv,
            (-a01 * c5 + a02 * c4 - a03 * c3) * inv,
            (a31 * s5 - a32 * s4 + a33 * s3) * inv,
            (-a21 * s5 + a22 * s4 - a23 * s3) * inv,
        ],
        [
            (-a10 * c5 + a12 * c2 - a13 * c1) * inv,
            (a00 * c5 - a02 * c2 + a03 * c1) * inv,
            (-a30 * s5 + a32 * s2 - a33 * s1) * inv,
            (a20 * s5 - a22 * s2 + a23 * s1) * inv,
        ],
        [
            (a10 * c4 - a11 * c2 + a13 * c0) * inv,
            (-a00 * c4 + a01 * c2 - a03 * c0) * inv,
            (a30 * s4 - a31 * s2 + a33 * s0) * inv,
            (-a20 * s4 + a21 * s2 - a23 * s0) * inv,
        ],
        [
            (-a10 * c3 + a11 * c1 - a12 * c0) * inv,
            (a00 * c3 - a01 * c1 + a02 * c0) * inv,
            (-a30 * s3 + a31 * s1 - a32 * s0) * inv,
            (a20 * s3 - a21 * s1 + a22 * s0) * inv,
        ],
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn multiply(a: &Mat4, b: &Mat4) -> Mat4 {
        let mut out = [[0.0; 4]; 4];
        for (r, row) in out.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = (0..4).map(|k| a[r][k] * b[k][c]).sum();
            }
        }
        out
    }

    fn assert_identity(m: &Mat4) {
        for (r, row) in m.iter().enumerate() {
            for (c, &cell) in row.iter().enumerate() {
                let want = if r == c { 1.0 } else { 0.0 };
                assert!((cell - want).abs() < 1e-4, "cell {r},{c} is {cell}: {m:?}");
            }
        }
    }

    #[test]
    fn inverse_times_matrix_is_identity() {
        let matrices = [
            IDENTITY,
            rotation_x(1.2),
            [
                [2.0, 0.5, 0.0, 3.0],
                [0.0, 1.0, 4.0, -1.0],
                [1.0, 0.0, 3.0, 0.5],
                [0.0, 2.0, 0.0, 1.0],
            ],
            [
                [0.3, -1.0, 2.0, 0.0],
                [4.0, 0.2, 0.0, 1.0],
                [0.0, 1.5, -0.7, 2.0],
                [1.0, 0.0, 0.0, 0.9],
            ],
        ];
        for m in &matrices {
            let inverse = invert(m).unwrap();
            assert_identity(&multiply(m, &inverse));
            assert_identity(&multiply(&inverse, m));
        }
    }

    #[test]
    fn singular_matrices_have_no_inverse() {
        let mut m = IDENTITY;
        m[2] = m[1];
        assert_eq!(invert(&m), None);
    }

    #[test]
    fn kernels() {
        let (mut t, mut p, _, v) = heavy_entity();
        heavy(&mut p, &mut t);
        // 100 inversions of a rotation are the rotation again.
        let expected = rotation_x(1.2);
        for (row, want) in t.0.iter().zip(expected) {
            for (got, want) in row.iter().zip(want) {
                assert!((got - want).abs() < 1e-4);
            }
        }
        let (s, c) = 1.2f32.sin_cos();
        for (got, want) in p.0.iter().zip([0.0, c, s]) {
            assert!((got - want).abs() < 1e-5, "{p:?}");
        }
        integrate(&mut p, &v);
        assert!((p.0[0] - 1.0).abs() < 1e-6);
        let mut d = Data(1.5);
        double(&mut d);
        assert_eq!(d, Data(3.0));
    }
}
