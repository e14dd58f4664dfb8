use modelgate_core::inflate::*;
#[test]
fn probe() {
    println!("hello: {:02x?}", deflate(b"hello hello hello hello", 1 << 20).unwrap());
    println!("empty: {:02x?}", deflate(b"", 1 << 20).unwrap());
    println!("one: {:02x?}", deflate(b"a", 1 << 20).unwrap());
    let z = vec![0u8; 10 << 20];
    println!("10MiB zeros: {}", deflate(&z, usize::MAX).unwrap().len());
    println!("{:?}", inflate_exact(&[0x07], 0, None, false, |_| {}));
    println!(
        "{:?}",
        inflate_exact(
            &[
                0x01, 10, 0, 0xf5, 0xff, b'0', b'1', b'2', b'3', b'4', b'5', b'6', b'7', b'8', b'9'
            ],
            3,
            None,
            false,
            |_| {}
        )
    );
}
