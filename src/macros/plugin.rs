//! `plugin!`: one crate's part of a world (components, tracked
//! components, resources, the components it requires, and the function
//! that adds its systems), declared once and included by name in any
//! `world!` (`plugins (physics::Physics);`).
//!
//! A declarative macro cannot read another crate's items, so the part
//! travels as tokens: `plugin!` writes a trait (the bound generic code
//! uses) and, at the plugin crate's root, a macro of the same name that
//! hands the part to whichever macro asks (`world!`'s
//! `__world_plugins!`, the callback pattern). The part names its types
//! from the plugin crate's root; `world!` puts the path the game wrote in
//! front of them.

/// Declares a plugin: a crate's part of any world that includes it.
///
/// ```
/// # mod physics {
/// use typed_ecs::prelude::*;
///
/// pub struct Pos(pub f32);
/// pub struct Vel(pub f32);
/// #[derive(Default)]
/// pub struct Gravity(pub f32);
///
/// typed_ecs::plugin! {
///     /// Falling bodies, for any world.
///     pub trait Physics {
///         components (Pos, Vel);
///         resources { gravity: Gravity }
///         systems add_physics;
///     }
/// }
///
/// fn fall<W: Physics>(vel: &mut StorageOf<W, Vel>, gravity: &Gravity)
/// where
///     Gravity: ReadParam<W>,
/// {
///     vel.values_mut().iter_mut().for_each(|v| v.0 -= gravity.0);
/// }
/// fn integrate<W: Physics>(pos: &mut StorageOf<W, Pos>, vel: &StorageOf<W, Vel>) {
///     join((pos, vel)).for_each(|_, (p, v)| p.0 += v.0);
/// }
///
/// /// The plugin's systems, for any world that includes it.
/// pub fn add_physics<W: Physics>(schedule: &mut Schedule<W>)
/// where
///     Gravity: ReadParam<W>,
/// {
///     schedule.add_system(fall::<W>).add_system(integrate::<W>);
/// }
/// # }
/// # use physics::*;
/// # use typed_ecs::prelude::*;
/// # struct Health(i32);
/// // In the game (`plugins (physics::Physics);` names the plugin's path):
/// # /*
/// world! {
///     pub struct Game<Health>;
///     plugins (physics::Physics);
/// }
/// # */
/// # world! { pub struct Game { health: Health, pos: Pos, vel: Vel } resources { gravity: Gravity } }
/// # impl Physics for Game {
/// #     fn gravity(&self) -> &Gravity { &self.gravity }
/// #     fn gravity_mut(&mut self) -> &mut Gravity { &mut self.gravity }
/// #     fn add_systems(schedule: &mut Schedule<Self>) { add_physics::<Self>(schedule) }
/// # }
/// let mut world = Game::new();
/// world.gravity_mut().0 = 1.0;
/// let rock = world.spawn_with((Pos(10.0), Vel(0.0)));
/// let mut schedule = Schedule::new();
/// Physics::add_systems(&mut schedule);
/// schedule.run(&mut world);
/// assert_eq!(world.pos.get(rock).unwrap().0, 9.0);
/// ```
///
/// (A doc test cannot have a second crate, so this one writes by hand the
/// impl `world!` writes for `plugins (physics::Physics)`; the repository's
/// `examples/plugins` workspace has the two crates.)
///
/// The sections, each optional, in this order:
///
/// * `components (A, B);`: the plugin's components, which the world gets
///   as fields named by their snake_case (`a`, `b`), as the list form of
///   `world!` names them;
/// * `tracked (A);`: which of them the world tracks;
/// * `resources { name: Type }`: its resources, fields of the world, and
///   methods `name()` / `name_mut()` of the trait for generic code;
/// * `events { name: Type }` (each may end `[bound N]`): its events, fields
///   `Events<Type>` of the world; the trait implies `EventsOf<Type>`, so
///   its systems take `Writer<Type>` and `Reader<Type>`;
/// * `hooks { on_add(A) => hook, other; on_remove(B) => hook; }`: hooks of
///   its components (or of those it requires), as in `world!`; each hook is
///   generic over the world (`fn hook<W: Physics>(…)`), and the world names
///   it `hook::<World>`. A world runs its own hook lines first, then each
///   plugin's, in the order `plugins (…)` lists them;
/// * `requires (C, …);`: components it uses and the world must declare
///   (the game's, or another plugin's);
/// * `systems add_systems_fn;`: a function `fn<W: Plugin>(&mut
///   Schedule<W>)` that adds the plugin's systems; the trait's
///   `add_systems` calls it, type-checked against each world.
///
/// What it declares:
///
/// * the trait, `pub trait Physics: World + Contains<A> + Contains<B> + …`
///   (a bound for generic code), with `add_systems(schedule)` and the
///   resources' accessors; `world!` implements it for each world that
///   lists the plugin;
/// * a hidden macro of the same name at the crate root, which `world!`
///   calls to read the plugin's part.
///
/// Rules, because the part travels as tokens: call `plugin!` at the root
/// of the plugin crate (the trait and the macro are then one path,
/// `physics::Physics`), and name components and resources by types the
/// crate root can see (re-export them there). A system of the plugin that
/// takes a resource bounds it (`where Gravity: ReadParam<W>`): a world
/// that is a type parameter proves no resource is its.
#[macro_export]
macro_rules! plugin {
    (
        $(#[$attr:meta])*
        $vis:vis trait $name:ident {
            $( components ( $($comp:ident),+ $(,)? ) ; )?
            $( tracked ( $($tra:ident),+ $(,)? ) ; )?
            $( resources { $( $(#[$res_attr:meta])* $res:ident : $res_ty:ident ),* $(,)? } )?
            $( events { $( $ev:ident : $ev_ty:ident $([bound $bound:expr])? ),* $(,)? } )?
            $( hooks { $( $hkind:ident ( $hcomp:ident ) => $($hook:ident),+ ; )* } )?
            $( requires ( $($req:ident),+ $(,)? ) ; )?
            $( systems $sys:ident ; )?
        }
    ) => {
        $crate::__plugin! {
            @dollar ($)
            [$(#[$attr])*] $vis $name
            [$($($comp)+)?]
            [$($($tra)+)?]
            [$($( [$(#[$res_attr])*] $res $res_ty )*)?]
            [$($( $ev $ev_ty [$($bound)?] )*)?]
            [$($( $hkind $hcomp [$($hook)+] )*)?]
            [$($($req)+)?]
            [$($sys)?]
        }
    };
    ($($input:tt)*) => {
        $crate::__private::core::compile_error! {
            "`plugin!` expects `pub trait Name { … }` with, each optional and in this order: \
             `components (A, B);`, `tracked (A);`, `resources { name: Type }`, \
             `events { name: Type }`, `hooks { on_add(A) => hook; }`, `requires (C);` and \
             `systems add_systems_fn;`"
        }
    };
}

/// Writes what `plugin!` declares, with `$d` the `$` its macro needs. Not
/// public API.
#[doc(hidden)] // Called by `plugin!` only.
#[macro_export]
macro_rules! __plugin {
    (
        @dollar ($d:tt)
        [$($attr:tt)*] $vis:vis $name:ident
        [$($comp:ident)*]
        [$($tra:ident)*]
        [$( [$($res_attr:tt)*] $res:ident $res_ty:ident )*]
        [$( $ev:ident $ev_ty:ident [$($bound:expr)?] )*]
        [$( $hkind:ident $hcomp:ident [$($hook:ident)+] )*]
        [$($req:ident)*]
        [$($sys:ident)?]
    ) => {
        $crate::__private::paste! {
            $($attr)*
            $vis trait $name: $crate::World
                $(+ $crate::Contains<$comp>)* $(+ $crate::Contains<$req>)* $(+ $crate::EventsOf<$ev_ty>)*
            {
                $(
                    $($res_attr)*
                    fn $res(&self) -> &$res_ty;

                    #[doc = "The resource `" $res "`, mutably."]
                    fn [<$res _mut>](&mut self) -> &mut $res_ty;
                )*

                /// Adds this plugin's systems to `schedule` (none if it
                /// declares no `systems`).
                fn add_systems(schedule: &mut $crate::Schedule<Self>)
                where
                    Self: Sized;
            }

            #[doc(hidden)] // `world!` reads the plugin's part through it.
            #[macro_export]
            macro_rules! $name {
                ([$d($d callback:tt)*] [$d($d pre:ident)*] { $d($d state:tt)* }) => {
                    $d($d callback)*! {
                        @part {
                            name [$name]
                            components [$( ([<$comp:snake>] $comp $d($d pre::)* $comp) )*]
                            tracked [$( $d($d pre::)* $tra , )*]
                            resources [$( ($res $d($d pre::)* $res_ty) )*]
                            events [$( ($ev $d($d pre::)* $ev_ty [$($bound)?]) )*]
                            hooks [$( ($hkind ($d($d pre::)* $hcomp) [$( ($d($d pre::)* $hook) )+]) )*]
                            requires [$( $d($d pre::)* $req , )*]
                            systems [$( $d($d pre::)* $sys )?]
                        }
                        $d($d state)*
                    }
                };
            }
        }
    };
}
