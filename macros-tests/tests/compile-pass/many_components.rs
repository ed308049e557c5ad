use typed_ecs::prelude::*;

#[derive(Debug, Clone, Default)]
pub struct C0(u64);
#[derive(Debug, Clone, Default)]
pub struct C1(u64);
#[derive(Debug, Clone, Default)]
pub struct C2(u64);
#[derive(Debug, Clone, Default)]
pub struct C3(u64);
#[derive(Debug, Clone, Default)]
pub struct C4(u64);
#[derive(Debug, Clone, Default)]
pub struct C5(u64);
#[derive(Debug, Clone, Default)]
pub struct C6(u64);
#[derive(Debug, Clone, Default)]
pub struct C7(u64);
#[derive(Debug, Clone, Default)]
pub struct C8(u64);
#[derive(Debug, Clone, Default)]
pub struct C9(u64);
#[derive(Debug, Clone, Default)]
pub struct C10(u64);
#[derive(Debug, Clone, Default)]
pub struct C11(u64);
#[derive(Debug, Clone, Default)]
pub struct C12(u64);
#[derive(Debug, Clone, Default)]
pub struct C13(u64);
#[derive(Debug, Clone, Default)]
pub struct C14(u64);
#[derive(Debug, Clone, Default)]
pub struct C15(u64);
#[derive(Debug, Clone, Default)]
pub struct C16(u64);
#[derive(Debug, Clone, Default)]
pub struct C17(u64);
#[derive(Debug, Clone, Default)]
pub struct C18(u64);
#[derive(Debug, Clone, Default)]
pub struct C19(u64);
#[derive(Debug, Clone, Default)]
pub struct C20(u64);
#[derive(Debug, Clone, Default)]
pub struct C21(u64);
#[derive(Debug, Clone, Default)]
pub struct C22(u64);
#[derive(Debug, Clone, Default)]
pub struct C23(u64);
#[derive(Debug, Clone, Default)]
pub struct C24(u64);
#[derive(Debug, Clone, Default)]
pub struct C25(u64);
#[derive(Debug, Clone, Default)]
pub struct C26(u64);
#[derive(Debug, Clone, Default)]
pub struct C27(u64);
#[derive(Debug, Clone, Default)]
pub struct C28(u64);
#[derive(Debug, Clone, Default)]
pub struct C29(u64);
#[derive(Debug, Clone, Default)]
pub struct C30(u64);
#[derive(Debug, Clone, Default)]
pub struct C31(u64);
#[derive(Debug, Clone, Default)]
pub struct C32(u64);
#[derive(Debug, Clone, Default)]
pub struct C33(u64);
#[derive(Debug, Clone, Default)]
pub struct C34(u64);
#[derive(Debug, Clone, Default)]
pub struct C35(u64);
#[derive(Debug, Clone, Default)]
pub struct C36(u64);
#[derive(Debug, Clone, Default)]
pub struct C37(u64);
#[derive(Debug, Clone, Default)]
pub struct C38(u64);
#[derive(Debug, Clone, Default)]
pub struct C39(u64);
#[derive(Debug, Clone, Default)]
pub struct C40(u64);
#[derive(Debug, Clone, Default)]
pub struct C41(u64);
#[derive(Debug, Clone, Default)]
pub struct C42(u64);
#[derive(Debug, Clone, Default)]
pub struct C43(u64);
#[derive(Debug, Clone, Default)]
pub struct C44(u64);
#[derive(Debug, Clone, Default)]
pub struct C45(u64);
#[derive(Debug, Clone, Default)]
pub struct C46(u64);
#[derive(Debug, Clone, Default)]
pub struct C47(u64);
#[derive(Debug, Clone, Default)]
pub struct C48(u64);
#[derive(Debug, Clone, Default)]
pub struct C49(u64);
#[derive(Debug, Clone, Default)]
pub struct C50(u64);
#[derive(Debug, Clone, Default)]
pub struct C51(u64);
#[derive(Debug, Clone, Default)]
pub struct C52(u64);
#[derive(Debug, Clone, Default)]
pub struct C53(u64);
#[derive(Debug, Clone, Default)]
pub struct C54(u64);
#[derive(Debug, Clone, Default)]
pub struct C55(u64);
#[derive(Debug, Clone, Default)]
pub struct C56(u64);
#[derive(Debug, Clone, Default)]
pub struct C57(u64);
#[derive(Debug, Clone, Default)]
pub struct C58(u64);
#[derive(Debug, Clone, Default)]
pub struct C59(u64);
#[derive(Debug, Clone, Default)]
pub struct C60(u64);
#[derive(Debug, Clone, Default)]
pub struct C61(u64);
#[derive(Debug, Clone, Default)]
pub struct C62(u64);
#[derive(Debug, Clone, Default)]
pub struct C63(u64);

world! {
    #[derive(Debug, Clone)]
    pub struct Big<C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17, C18, C19, C20, C21, C22, C23, C24, C25, C26, C27, C28, C29, C30, C31, C32, C33, C34, C35, C36, C37, C38, C39, C40, C41, C42, C43, C44, C45, C46, C47, C48, C49, C50, C51, C52, C53, C54, C55, C56, C57, C58, C59, C60, C61, C62, C63>;
}

fn main() {
    let mut world = Big::new();
    let e = world.spawn_with((C0(0), C1(1), C2(2), C3(3), C4(4), C5(5), C6(6), C7(7), C8(8), C9(9), C10(10), C11(11), C12(12), C13(13), C14(14), C15(15)));
    world.add(e, C63(63));
    assert_eq!(world.component_names().len(), 64);
    assert_eq!(<Big as Contains<C63>>::INDEX, 63);
    assert_eq!(world.c63.get(e).map(|c| c.0), Some(63));
    let copy = world.clone();
    world.despawn(e);
    assert_eq!(copy.entity_count(), 1);
    assert_eq!(world.size::<C0>(), 0);
}
