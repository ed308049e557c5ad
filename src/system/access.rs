//! What a system touches, and the compile-time checks over it.
//!
//! Every system parameter says what it borrows as a constant [`Access`]. A
//! system's list and a stage's lists are checked by `const fn`s here,
//! evaluated in `add_system` and `add_systems`: a conflict is a compile
//! error whose message names the component or resource, the systems and
//! the fix. The message is built at compile time into a fixed buffer (a
//! `const` panic can only print a `&str`).

/// What a parameter borrows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A component's storage, by its `Component::INDEX`.
    Component(usize),
    /// A resource, by its position in the `resources { … }` list.
    Resource(usize),
    /// The entity allocator.
    Entities,
    /// The whole world: the system is exclusive.
    World,
}

/// One parameter's borrow: what, and whether it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// What the parameter borrows.
    pub target: Target,
    /// `true` for a `&mut` borrow.
    pub write: bool,
}

impl Access {
    /// A shared borrow of `target`.
    pub const fn read(target: Target) -> Self {
        Access {
            target,
            write: false,
        }
    }

    /// A mutable borrow of `target`.
    pub const fn write(target: Target) -> Self {
        Access {
            target,
            write: true,
        }
    }
}

/// The names a message needs: the world's, its components' and resources'.
#[derive(Clone, Copy, Debug)]
pub struct Names {
    /// The world's type name.
    pub world: &'static str,
    /// The component types, by index.
    pub components: &'static [&'static str],
    /// The resource types, by index.
    pub resources: &'static [&'static str],
}

/// A message built at compile time; empty when a check passed.
#[derive(Clone, Copy, Debug)]
pub struct Message {
    bytes: [u8; 640],
    len: usize,
}

impl Message {
    const fn new() -> Self {
        Message {
            bytes: [0; 640],
            len: 0,
        }
    }

    /// `true` when the check passed.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The message.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(text) => text,
            Err(_) => "typed_ecs: a system check failed",
        }
    }

    /// Appends `text`, cut at the buffer's end (on a character boundary:
    /// only whole UTF-8 sequences are copied).
    const fn push(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < self.bytes.len() {
            let width = match bytes[i] {
                0..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            if self.len + width > self.bytes.len() {
                break;
            }
            let mut k = 0;
            while k < width && i + k < bytes.len() {
                self.bytes[self.len] = bytes[i + k];
                self.len += 1;
                k += 1;
            }
            i += width;
        }
        self
    }

    const fn push_number(self, n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut count = 0;
        let mut rest = n;
        loop {
            digits[digits.len() - 1 - count] = b'0' + (rest % 10) as u8;
            count += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let (_, tail) = digits.split_at(digits.len() - count);
        match core::str::from_utf8(tail) {
            Ok(text) => self.push(text),
            Err(_) => self,
        }
    }

    /// Appends how a parameter borrowing `target` is written.
    const fn push_target(self, names: Names, target: Target) -> Self {
        match target {
            Target::Component(i) if i < names.components.len() => {
                self.push("SparseMap<").push(names.components[i]).push(">")
            }
            Target::Resource(i) if i < names.resources.len() => self.push(names.resources[i]),
            Target::Entities => self.push("EntityAllocator"),
            Target::World => self.push(names.world),
            Target::Component(_) | Target::Resource(_) => self.push("a storage"),
        }
    }
}

const fn same(a: Target, b: Target) -> bool {
    match (a, b) {
        (Target::Component(i), Target::Component(j))
        | (Target::Resource(i), Target::Resource(j)) => i == j,
        (Target::Entities, Target::Entities) | (Target::World, Target::World) => true,
        _ => false,
    }
}

/// `true` if one of `params` borrows the whole world (the system is
/// exclusive).
pub(crate) const fn is_exclusive(params: &[Option<Access>]) -> bool {
    let mut i = 0;
    while i < params.len() {
        if let Some(Access {
            target: Target::World,
            ..
        }) = params[i]
        {
            return true;
        }
        i += 1;
    }
    false
}

/// Checks one system's parameters: a `&mut` borrow must be the only borrow
/// of its target, and `&mut W` the only parameter with a borrow. Returns an
/// empty message if they pass.
pub const fn check_system(names: Names, params: &[Option<Access>]) -> Message {
    if is_exclusive(params) {
        let mut borrows = 0;
        let mut i = 0;
        while i < params.len() {
            if params[i].is_some() {
                borrows += 1;
            }
            i += 1;
        }
        if borrows > 1 {
            return Message::new()
                .push("this system takes `&mut ")
                .push(names.world)
                .push("`, the whole world, and other parameters: an exclusive system takes `&mut ")
                .push(names.world)
                .push("` alone (and `&mut Commands` if it likes); reach the storages and resources as the world's fields");
        }
        return Message::new();
    }
    let mut i = 0;
    while i < params.len() {
        let mut j = i + 1;
        while j < params.len() {
            if let (Some(a), Some(b)) = (params[i], params[j]) {
                if same(a.target, b.target) && (a.write || b.write) {
                    return Message::new()
                        .push("this system takes `")
                        .push_target(names, a.target)
                        .push("` twice (parameters ")
                        .push_number(i + 1)
                        .push(" and ")
                        .push_number(j + 1)
                        .push("), and at least once as `&mut`: a system may borrow something mutably only if it takes it once. Take it once, as `&mut ")
                        .push_target(names, a.target)
                        .push("`, which reads as well as writes");
                }
            }
            j += 1;
        }
        i += 1;
    }
    Message::new()
}

/// Checks the systems of one stage, each first on its own (see
/// [`check_system`]), then against each other: no system of a stage may
/// write what another reads or writes, and none may be exclusive unless it
/// is alone. Returns an empty message if they pass.
pub const fn check_stage(names: Names, systems: &[&[Option<Access>]]) -> Message {
    let mut s = 0;
    while s < systems.len() {
        let own = check_system(names, systems[s]);
        if !own.is_empty() {
            return Message::new()
                .push("system #")
                .push_number(s + 1)
                .push(" of this stage: ")
                .push(own.as_str());
        }
        if systems.len() > 1 && is_exclusive(systems[s]) {
            return Message::new()
                .push("system #")
                .push_number(s + 1)
                .push(" of this stage takes `&mut ")
                .push(names.world)
                .push("`, the whole world, so it cannot share a stage with other systems: add it alone, with `add_system`");
        }
        s += 1;
    }
    let mut s = 0;
    while s < systems.len() {
        let mut t = s + 1;
        while t < systems.len() {
            let mut i = 0;
            while i < systems[s].len() {
                let mut j = 0;
                while j < systems[t].len() {
                    if let (Some(a), Some(b)) = (systems[s][i], systems[t][j]) {
                        if same(a.target, b.target) && (a.write || b.write) {
                            let (writer, other, verb) = if a.write {
                                (s, t, if b.write { "writes" } else { "reads" })
                            } else {
                                (t, s, "reads")
                            };
                            return Message::new()
                                .push("systems #")
                                .push_number(s + 1)
                                .push(" and #")
                                .push_number(t + 1)
                                .push(" of this stage conflict: #")
                                .push_number(writer + 1)
                                .push(" writes `")
                                .push_target(names, a.target)
                                .push("`, which #")
                                .push_number(other + 1)
                                .push(" ")
                                .push(verb)
                                .push(". The systems of a stage may run at the same time, so none may write what another reads or writes. Put them in separate stages: `add_systems` twice, or `add_system` for each");
                        }
                    }
                    j += 1;
                }
                i += 1;
            }
            t += 1;
        }
        s += 1;
    }
    Message::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: Names = Names {
        world: "Game",
        components: &["Position", "Velocity"],
        resources: &["Time"],
    };
    const POS: Target = Target::Component(0);
    const VEL: Target = Target::Component(1);
    const TIME: Target = Target::Resource(0);

    #[test]
    fn reads_may_repeat_and_writes_may_not() {
        let reads = [Some(Access::read(POS)), Some(Access::read(POS)), None];
        assert!(check_system(NAMES, &reads).is_empty());
        let twice = [
            Some(Access::read(VEL)),
            Some(Access::write(POS)),
            Some(Access::read(POS)),
        ];
        let message = check_system(NAMES, &twice);
        assert_eq!(
            message.as_str().split(':').next(),
            Some("this system takes `SparseMap<Position>` twice (parameters 2 and 3), and at least once as `&mut`")
        );
        let resource = [Some(Access::write(TIME)), Some(Access::write(TIME))];
        assert!(check_system(NAMES, &resource)
            .as_str()
            .contains("takes `Time` twice"));
    }

    #[test]
    fn the_whole_world_comes_alone() {
        let alone = [Some(Access::write(Target::World)), None];
        assert!(check_system(NAMES, &alone).is_empty());
        let with = [Some(Access::write(Target::World)), Some(Access::read(POS))];
        assert!(check_system(NAMES, &with)
            .as_str()
            .starts_with("this system takes `&mut Game`"));
        let stage: [&[Option<Access>]; 2] = [&alone, &[Some(Access::read(VEL))]];
        assert!(check_stage(NAMES, &stage)
            .as_str()
            .starts_with("system #1 of this stage takes `&mut Game`"));
        assert!(check_stage(NAMES, &[&alone]).is_empty());
    }

    #[test]
    fn a_stage_rejects_a_write_that_meets_another_borrow() {
        let movement = [
            Some(Access::write(POS)),
            Some(Access::read(VEL)),
            Some(Access::read(TIME)),
        ];
        let render = [Some(Access::read(POS)), Some(Access::read(TIME))];
        let physics = [
            Some(Access::write(VEL)),
            Some(Access::read(Target::Entities)),
        ];
        assert!(check_stage(NAMES, &[&render, &[Some(Access::read(VEL))]]).is_empty());
        let message = check_stage(NAMES, &[&render, &physics, &movement]);
        assert_eq!(
            message.as_str().split('.').next(),
            Some("systems #1 and #3 of this stage conflict: #3 writes `SparseMap<Position>`, which #1 reads")
        );
        let message = check_stage(NAMES, &[&physics, &movement]);
        assert!(message.as_str().starts_with(
            "systems #1 and #2 of this stage conflict: #1 writes `SparseMap<Velocity>`, which #2 reads"
        ));
        let both = [Some(Access::write(TIME))];
        assert!(check_stage(NAMES, &[&both, &both]).as_str().starts_with(
            "systems #1 and #2 of this stage conflict: #1 writes `Time`, which #2 writes"
        ));
    }

    #[test]
    fn long_messages_are_cut_whole() {
        let long = "é".repeat(400);
        let message = Message::new().push(&long);
        assert_eq!(message.as_str().len(), 640);
        assert_eq!(Message::new().push_number(0).as_str(), "0");
        assert_eq!(Message::new().push_number(1207).as_str(), "1207");
    }
}
