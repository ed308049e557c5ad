//! A world with 200 components (past the depth where nested tuples
//! overflow rustc's drop-check): the macro expands without recursion, every
//! component gets its own storage and index, and whole-world operations
//! (despawn, clear, clone, finalize) reach every storage.
//!
//! Generated: the component list is long by design.

use typed_ecs::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct C0(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C1(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C2(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C3(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C4(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C5(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C6(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C7(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C8(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C9(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C10(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C11(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C12(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C13(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C14(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C15(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C16(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C17(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C18(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C19(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C20(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C21(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C22(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C23(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C24(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C25(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C26(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C27(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C28(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C29(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C30(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C31(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C32(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C33(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C34(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C35(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C36(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C37(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C38(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C39(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C40(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C41(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C42(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C43(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C44(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C45(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C46(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C47(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C48(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C49(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C50(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C51(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C52(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C53(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C54(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C55(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C56(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C57(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C58(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C59(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C60(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C61(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C62(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C63(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C64(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C65(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C66(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C67(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C68(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C69(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C70(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C71(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C72(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C73(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C74(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C75(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C76(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C77(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C78(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C79(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C80(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C81(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C82(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C83(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C84(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C85(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C86(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C87(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C88(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C89(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C90(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C91(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C92(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C93(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C94(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C95(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C96(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C97(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C98(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C99(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C100(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C101(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C102(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C103(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C104(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C105(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C106(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C107(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C108(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C109(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C110(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C111(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C112(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C113(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C114(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C115(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C116(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C117(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C118(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C119(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C120(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C121(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C122(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C123(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C124(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C125(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C126(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C127(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C128(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C129(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C130(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C131(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C132(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C133(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C134(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C135(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C136(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C137(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C138(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C139(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C140(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C141(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C142(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C143(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C144(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C145(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C146(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C147(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C148(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C149(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C150(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C151(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C152(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C153(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C154(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C155(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C156(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C157(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C158(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C159(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C160(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C161(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C162(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C163(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C164(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C165(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C166(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C167(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C168(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C169(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C170(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C171(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C172(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C173(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C174(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C175(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C176(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C177(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C178(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C179(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C180(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C181(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C182(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C183(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C184(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C185(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C186(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C187(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C188(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C189(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C190(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C191(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C192(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C193(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C194(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C195(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C196(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C197(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C198(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct C199(pub u32);

world! {
    #[derive(Debug, Clone)]
    pub struct Huge<
        C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15,
        C16, C17, C18, C19, C20, C21, C22, C23, C24, C25, C26, C27, C28, C29, C30, C31,
        C32, C33, C34, C35, C36, C37, C38, C39, C40, C41, C42, C43, C44, C45, C46, C47,
        C48, C49, C50, C51, C52, C53, C54, C55, C56, C57, C58, C59, C60, C61, C62, C63,
        C64, C65, C66, C67, C68, C69, C70, C71, C72, C73, C74, C75, C76, C77, C78, C79,
        C80, C81, C82, C83, C84, C85, C86, C87, C88, C89, C90, C91, C92, C93, C94, C95,
        C96, C97, C98, C99, C100, C101, C102, C103, C104, C105, C106, C107, C108, C109, C110, C111,
        C112, C113, C114, C115, C116, C117, C118, C119, C120, C121, C122, C123, C124, C125, C126, C127,
        C128, C129, C130, C131, C132, C133, C134, C135, C136, C137, C138, C139, C140, C141, C142, C143,
        C144, C145, C146, C147, C148, C149, C150, C151, C152, C153, C154, C155, C156, C157, C158, C159,
        C160, C161, C162, C163, C164, C165, C166, C167, C168, C169, C170, C171, C172, C173, C174, C175,
        C176, C177, C178, C179, C180, C181, C182, C183, C184, C185, C186, C187, C188, C189, C190, C191,
        C192, C193, C194, C195, C196, C197, C198, C199,
    >;
}

#[test]
fn every_component_has_its_own_storage() {
    let mut world = Huge::new();
    assert_eq!(world.component_names().len(), 200);
    assert_eq!(<Huge as Contains<C0>>::INDEX, 0);
    assert_eq!(<Huge as Contains<C127>>::INDEX, 127);
    assert_eq!(<Huge as Contains<C199>>::INDEX, 199);
    let e = world.spawn();
    world.add(e, C0(0));
    world.add(e, C1(1));
    world.add(e, C2(2));
    world.add(e, C3(3));
    world.add(e, C4(4));
    world.add(e, C5(5));
    world.add(e, C6(6));
    world.add(e, C7(7));
    world.add(e, C8(8));
    world.add(e, C9(9));
    world.add(e, C10(10));
    world.add(e, C11(11));
    world.add(e, C12(12));
    world.add(e, C13(13));
    world.add(e, C14(14));
    world.add(e, C15(15));
    world.add(e, C16(16));
    world.add(e, C17(17));
    world.add(e, C18(18));
    world.add(e, C19(19));
    world.add(e, C20(20));
    world.add(e, C21(21));
    world.add(e, C22(22));
    world.add(e, C23(23));
    world.add(e, C24(24));
    world.add(e, C25(25));
    world.add(e, C26(26));
    world.add(e, C27(27));
    world.add(e, C28(28));
    world.add(e, C29(29));
    world.add(e, C30(30));
    world.add(e, C31(31));
    world.add(e, C32(32));
    world.add(e, C33(33));
    world.add(e, C34(34));
    world.add(e, C35(35));
    world.add(e, C36(36));
    world.add(e, C37(37));
    world.add(e, C38(38));
    world.add(e, C39(39));
    world.add(e, C40(40));
    world.add(e, C41(41));
    world.add(e, C42(42));
    world.add(e, C43(43));
    world.add(e, C44(44));
    world.add(e, C45(45));
    world.add(e, C46(46));
    world.add(e, C47(47));
    world.add(e, C48(48));
    world.add(e, C49(49));
    world.add(e, C50(50));
    world.add(e, C51(51));
    world.add(e, C52(52));
    world.add(e, C53(53));
    world.add(e, C54(54));
    world.add(e, C55(55));
    world.add(e, C56(56));
    world.add(e, C57(57));
    world.add(e, C58(58));
    world.add(e, C59(59));
    world.add(e, C60(60));
    world.add(e, C61(61));
    world.add(e, C62(62));
    world.add(e, C63(63));
    world.add(e, C64(64));
    world.add(e, C65(65));
    world.add(e, C66(66));
    world.add(e, C67(67));
    world.add(e, C68(68));
    world.add(e, C69(69));
    world.add(e, C70(70));
    world.add(e, C71(71));
    world.add(e, C72(72));
    world.add(e, C73(73));
    world.add(e, C74(74));
    world.add(e, C75(75));
    world.add(e, C76(76));
    world.add(e, C77(77));
    world.add(e, C78(78));
    world.add(e, C79(79));
    world.add(e, C80(80));
    world.add(e, C81(81));
    world.add(e, C82(82));
    world.add(e, C83(83));
    world.add(e, C84(84));
    world.add(e, C85(85));
    world.add(e, C86(86));
    world.add(e, C87(87));
    world.add(e, C88(88));
    world.add(e, C89(89));
    world.add(e, C90(90));
    world.add(e, C91(91));
    world.add(e, C92(92));
    world.add(e, C93(93));
    world.add(e, C94(94));
    world.add(e, C95(95));
    world.add(e, C96(96));
    world.add(e, C97(97));
    world.add(e, C98(98));
    world.add(e, C99(99));
    world.add(e, C100(100));
    world.add(e, C101(101));
    world.add(e, C102(102));
    world.add(e, C103(103));
    world.add(e, C104(104));
    world.add(e, C105(105));
    world.add(e, C106(106));
    world.add(e, C107(107));
    world.add(e, C108(108));
    world.add(e, C109(109));
    world.add(e, C110(110));
    world.add(e, C111(111));
    world.add(e, C112(112));
    world.add(e, C113(113));
    world.add(e, C114(114));
    world.add(e, C115(115));
    world.add(e, C116(116));
    world.add(e, C117(117));
    world.add(e, C118(118));
    world.add(e, C119(119));
    world.add(e, C120(120));
    world.add(e, C121(121));
    world.add(e, C122(122));
    world.add(e, C123(123));
    world.add(e, C124(124));
    world.add(e, C125(125));
    world.add(e, C126(126));
    world.add(e, C127(127));
    world.add(e, C199(199));
    assert_eq!(world.get::<C0>(e), Some(&C0(0)));
    assert_eq!(world.get::<C1>(e), Some(&C1(1)));
    assert_eq!(world.get::<C2>(e), Some(&C2(2)));
    assert_eq!(world.get::<C3>(e), Some(&C3(3)));
    assert_eq!(world.get::<C4>(e), Some(&C4(4)));
    assert_eq!(world.get::<C5>(e), Some(&C5(5)));
    assert_eq!(world.get::<C6>(e), Some(&C6(6)));
    assert_eq!(world.get::<C7>(e), Some(&C7(7)));
    assert_eq!(world.get::<C8>(e), Some(&C8(8)));
    assert_eq!(world.get::<C9>(e), Some(&C9(9)));
    assert_eq!(world.get::<C10>(e), Some(&C10(10)));
    assert_eq!(world.get::<C11>(e), Some(&C11(11)));
    assert_eq!(world.get::<C12>(e), Some(&C12(12)));
    assert_eq!(world.get::<C13>(e), Some(&C13(13)));
    assert_eq!(world.get::<C14>(e), Some(&C14(14)));
    assert_eq!(world.get::<C15>(e), Some(&C15(15)));
    assert_eq!(world.get::<C16>(e), Some(&C16(16)));
    assert_eq!(world.get::<C17>(e), Some(&C17(17)));
    assert_eq!(world.get::<C18>(e), Some(&C18(18)));
    assert_eq!(world.get::<C19>(e), Some(&C19(19)));
    assert_eq!(world.get::<C20>(e), Some(&C20(20)));
    assert_eq!(world.get::<C21>(e), Some(&C21(21)));
    assert_eq!(world.get::<C22>(e), Some(&C22(22)));
    assert_eq!(world.get::<C23>(e), Some(&C23(23)));
    assert_eq!(world.get::<C24>(e), Some(&C24(24)));
    assert_eq!(world.get::<C25>(e), Some(&C25(25)));
    assert_eq!(world.get::<C26>(e), Some(&C26(26)));
    assert_eq!(world.get::<C27>(e), Some(&C27(27)));
    assert_eq!(world.get::<C28>(e), Some(&C28(28)));
    assert_eq!(world.get::<C29>(e), Some(&C29(29)));
    assert_eq!(world.get::<C30>(e), Some(&C30(30)));
    assert_eq!(world.get::<C31>(e), Some(&C31(31)));
    assert_eq!(world.get::<C32>(e), Some(&C32(32)));
    assert_eq!(world.get::<C33>(e), Some(&C33(33)));
    assert_eq!(world.get::<C34>(e), Some(&C34(34)));
    assert_eq!(world.get::<C35>(e), Some(&C35(35)));
    assert_eq!(world.get::<C36>(e), Some(&C36(36)));
    assert_eq!(world.get::<C37>(e), Some(&C37(37)));
    assert_eq!(world.get::<C38>(e), Some(&C38(38)));
    assert_eq!(world.get::<C39>(e), Some(&C39(39)));
    assert_eq!(world.get::<C40>(e), Some(&C40(40)));
    assert_eq!(world.get::<C41>(e), Some(&C41(41)));
    assert_eq!(world.get::<C42>(e), Some(&C42(42)));
    assert_eq!(world.get::<C43>(e), Some(&C43(43)));
    assert_eq!(world.get::<C44>(e), Some(&C44(44)));
    assert_eq!(world.get::<C45>(e), Some(&C45(45)));
    assert_eq!(world.get::<C46>(e), Some(&C46(46)));
    assert_eq!(world.get::<C47>(e), Some(&C47(47)));
    assert_eq!(world.get::<C48>(e), Some(&C48(48)));
    assert_eq!(world.get::<C49>(e), Some(&C49(49)));
    assert_eq!(world.get::<C50>(e), Some(&C50(50)));
    assert_eq!(world.get::<C51>(e), Some(&C51(51)));
    assert_eq!(world.get::<C52>(e), Some(&C52(52)));
    assert_eq!(world.get::<C53>(e), Some(&C53(53)));
    assert_eq!(world.get::<C54>(e), Some(&C54(54)));
    assert_eq!(world.get::<C55>(e), Some(&C55(55)));
    assert_eq!(world.get::<C56>(e), Some(&C56(56)));
    assert_eq!(world.get::<C57>(e), Some(&C57(57)));
    assert_eq!(world.get::<C58>(e), Some(&C58(58)));
    assert_eq!(world.get::<C59>(e), Some(&C59(59)));
    assert_eq!(world.get::<C60>(e), Some(&C60(60)));
    assert_eq!(world.get::<C61>(e), Some(&C61(61)));
    assert_eq!(world.get::<C62>(e), Some(&C62(62)));
    assert_eq!(world.get::<C63>(e), Some(&C63(63)));
    assert_eq!(world.get::<C64>(e), Some(&C64(64)));
    assert_eq!(world.get::<C65>(e), Some(&C65(65)));
    assert_eq!(world.get::<C66>(e), Some(&C66(66)));
    assert_eq!(world.get::<C67>(e), Some(&C67(67)));
    assert_eq!(world.get::<C68>(e), Some(&C68(68)));
    assert_eq!(world.get::<C69>(e), Some(&C69(69)));
    assert_eq!(world.get::<C70>(e), Some(&C70(70)));
    assert_eq!(world.get::<C71>(e), Some(&C71(71)));
    assert_eq!(world.get::<C72>(e), Some(&C72(72)));
    assert_eq!(world.get::<C73>(e), Some(&C73(73)));
    assert_eq!(world.get::<C74>(e), Some(&C74(74)));
    assert_eq!(world.get::<C75>(e), Some(&C75(75)));
    assert_eq!(world.get::<C76>(e), Some(&C76(76)));
    assert_eq!(world.get::<C77>(e), Some(&C77(77)));
    assert_eq!(world.get::<C78>(e), Some(&C78(78)));
    assert_eq!(world.get::<C79>(e), Some(&C79(79)));
    assert_eq!(world.get::<C80>(e), Some(&C80(80)));
    assert_eq!(world.get::<C81>(e), Some(&C81(81)));
    assert_eq!(world.get::<C82>(e), Some(&C82(82)));
    assert_eq!(world.get::<C83>(e), Some(&C83(83)));
    assert_eq!(world.get::<C84>(e), Some(&C84(84)));
    assert_eq!(world.get::<C85>(e), Some(&C85(85)));
    assert_eq!(world.get::<C86>(e), Some(&C86(86)));
    assert_eq!(world.get::<C87>(e), Some(&C87(87)));
    assert_eq!(world.get::<C88>(e), Some(&C88(88)));
    assert_eq!(world.get::<C89>(e), Some(&C89(89)));
    assert_eq!(world.get::<C90>(e), Some(&C90(90)));
    assert_eq!(world.get::<C91>(e), Some(&C91(91)));
    assert_eq!(world.get::<C92>(e), Some(&C92(92)));
    assert_eq!(world.get::<C93>(e), Some(&C93(93)));
    assert_eq!(world.get::<C94>(e), Some(&C94(94)));
    assert_eq!(world.get::<C95>(e), Some(&C95(95)));
    assert_eq!(world.get::<C96>(e), Some(&C96(96)));
    assert_eq!(world.get::<C97>(e), Some(&C97(97)));
    assert_eq!(world.get::<C98>(e), Some(&C98(98)));
    assert_eq!(world.get::<C99>(e), Some(&C99(99)));
    assert_eq!(world.get::<C100>(e), Some(&C100(100)));
    assert_eq!(world.get::<C101>(e), Some(&C101(101)));
    assert_eq!(world.get::<C102>(e), Some(&C102(102)));
    assert_eq!(world.get::<C103>(e), Some(&C103(103)));
    assert_eq!(world.get::<C104>(e), Some(&C104(104)));
    assert_eq!(world.get::<C105>(e), Some(&C105(105)));
    assert_eq!(world.get::<C106>(e), Some(&C106(106)));
    assert_eq!(world.get::<C107>(e), Some(&C107(107)));
    assert_eq!(world.get::<C108>(e), Some(&C108(108)));
    assert_eq!(world.get::<C109>(e), Some(&C109(109)));
    assert_eq!(world.get::<C110>(e), Some(&C110(110)));
    assert_eq!(world.get::<C111>(e), Some(&C111(111)));
    assert_eq!(world.get::<C112>(e), Some(&C112(112)));
    assert_eq!(world.get::<C113>(e), Some(&C113(113)));
    assert_eq!(world.get::<C114>(e), Some(&C114(114)));
    assert_eq!(world.get::<C115>(e), Some(&C115(115)));
    assert_eq!(world.get::<C116>(e), Some(&C116(116)));
    assert_eq!(world.get::<C117>(e), Some(&C117(117)));
    assert_eq!(world.get::<C118>(e), Some(&C118(118)));
    assert_eq!(world.get::<C119>(e), Some(&C119(119)));
    assert_eq!(world.get::<C120>(e), Some(&C120(120)));
    assert_eq!(world.get::<C121>(e), Some(&C121(121)));
    assert_eq!(world.get::<C122>(e), Some(&C122(122)));
    assert_eq!(world.get::<C123>(e), Some(&C123(123)));
    assert_eq!(world.get::<C124>(e), Some(&C124(124)));
    assert_eq!(world.get::<C125>(e), Some(&C125(125)));
    assert_eq!(world.get::<C126>(e), Some(&C126(126)));
    assert_eq!(world.get::<C127>(e), Some(&C127(127)));
    assert_eq!(world.get::<C199>(e), Some(&C199(199)));
    let copy = world.clone();
    assert!(world.despawn(e));
    assert_eq!(
        world.size::<C0>() + world.size::<C64>() + world.size::<C199>(),
        0
    );
    world.assert_invariants();
    assert_eq!(copy.get::<C99>(e), Some(&C99(99)));
    copy.assert_invariants();
}

#[test]
fn deferred_changes_and_queries_reach_the_last_components() {
    let mut world = Huge::new();
    let a = world.spawn_with((C0(0), C126(1), C127(2)));
    let b = world.spawn_with((C0(0), C127(3)));
    world.remove_deferred::<C127>(b);
    world.add_deferred(b, C126(4));
    world.finalize_updates();
    let mut seen: Vec<(Entity, u32)> = world
        .query::<(&C126, Without<C127>)>()
        .map(|(e, (c, ()))| (e, c.0))
        .collect();
    seen.sort();
    assert_eq!(seen, [(b, 4)]);
    world
        .query_mut::<(&mut C127, &C126, With<C0>)>()
        .for_each(|_, (last, other, ())| last.0 += other.0);
    assert_eq!(world.get::<C127>(a), Some(&C127(3)));
    let mut commands = Commands::new();
    commands.spawn_with((
        C1(1),
        C2(2),
        C3(3),
        C4(4),
        C5(5),
        C6(6),
        C7(7),
        C8(8),
        C9(9),
        C10(10),
        C11(11),
        C12(12),
        C13(13),
        C14(14),
        C15(15),
        C16(16),
    ));
    let report = world.apply(&mut commands);
    assert!(report.is_clean());
    assert_eq!(world.get::<C16>(report.spawned()[0]), Some(&C16(16)));
    world.clear();
    assert_eq!(world.entity_count(), 0);
    world.assert_invariants();
}
