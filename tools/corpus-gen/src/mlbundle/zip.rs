//! A ZIP builder that can write every structure the mlbundle reader must accept or reject
//! (`spec/mlbundle.md` §2): stored or deflated data, the four descriptor forms, forced ZIP64
//! local and central records, ZIP64 end records, any central order, and a layout of every
//! record's offset so cases can patch one field and name the exact offset of the failure.

use modelgate_core::digest::ChunkDigest;
use modelgate_core::inflate::deflate;

/// CRC-32 of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    let mut d = ChunkDigest::crc_only();
    d.update(data);
    d.crc32()
}

/// The deterministic writer's raw deflate stream of `data` (`spec/inflate.md` §4).
pub fn written(data: &[u8]) -> Vec<u8> {
    deflate(data, usize::MAX).expect("unbounded")
}

/// Data descriptor form (§2.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc {
    /// With the `PK\x07\x08` signature.
    pub signed: bool,
    /// 64-bit sizes.
    pub wide: bool,
    /// Local CRC and sizes written as 0 (otherwise the real values).
    pub zero_local: bool,
}

/// One member to write.
#[derive(Clone, Debug)]
pub struct Member {
    /// Name bytes.
    pub name: Vec<u8>,
    /// Uncompressed bytes.
    pub data: Vec<u8>,
    /// 0 stored, 8 deflated.
    pub method: u16,
    /// General-purpose flags (the descriptor bit is added when `descriptor` is set).
    pub flags: u16,
    /// Version needed (0: chosen: 45 with ZIP64, else 20).
    pub version: u16,
    /// Data descriptor.
    pub descriptor: Option<Desc>,
    /// Local header: sentinel sizes with a ZIP64 field holding both.
    pub local_zip64: bool,
    /// Central header: sentinel sizes and offset with a ZIP64 field holding all three.
    pub central_zip64: bool,
    /// External attributes.
    pub external: u32,
    /// Version made by.
    pub made_by: u16,
    /// Member comment (central header).
    pub comment: Vec<u8>,
    /// Local extra field written instead of the automatic one.
    pub local_extra: Option<Vec<u8>>,
    /// Central extra field written instead of the automatic one.
    pub central_extra: Option<Vec<u8>>,
    /// Compressed bytes written instead of the real stream (sizes follow them).
    pub stream: Option<Vec<u8>>,
    /// Junk written after the data and descriptor (a gap).
    pub trailing: Vec<u8>,
}

impl Member {
    /// A deflated member with the writer's metadata.
    pub fn new(name: &str, data: &[u8]) -> Member {
        Member {
            name: name.as_bytes().to_vec(),
            data: data.to_vec(),
            method: 8,
            flags: 0,
            version: 0,
            descriptor: None,
            local_zip64: false,
            central_zip64: false,
            external: 0o100_600 << 16,
            made_by: 0x0314,
            comment: Vec::new(),
            local_extra: None,
            central_extra: None,
            stream: None,
            trailing: Vec::new(),
        }
    }

    /// The same member stored.
    pub fn stored(mut self) -> Member {
        self.method = 0;
        self
    }

    fn stream(&self) -> Vec<u8> {
        if let Some(s) = &self.stream {
            return s.clone();
        }
        if self.method == 8 {
            written(&self.data)
        } else {
            self.data.clone()
        }
    }

    fn version_needed(&self, zip64: bool) -> u16 {
        match self.version {
            0 if zip64 => 45,
            0 => 20,
            v => v,
        }
    }
}

/// Where everything landed.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Offset of each member's local header, by member index.
    pub local: Vec<u64>,
    /// Offset of each member's data.
    pub data: Vec<u64>,
    /// Offset just after each member's data (where a descriptor starts).
    pub data_end: Vec<u64>,
    /// Offset of each member's central header, by member index.
    pub central: Vec<u64>,
    /// Central directory offset.
    pub cd: u64,
    /// Offset of the ZIP64 end record, when written.
    pub zip64_end: Option<u64>,
    /// Offset of the ordinary end record.
    pub end: u64,
}

/// An archive to write.
#[derive(Clone, Debug)]
pub struct Zip {
    /// Members in local order.
    pub members: Vec<Member>,
    /// Central order as member indices (empty: local order).
    pub central_order: Vec<usize>,
    /// Write ZIP64 end record and locator.
    pub zip64_end: bool,
    /// With `zip64_end`: put sentinels in the ordinary end record.
    pub end_sentinels: bool,
    /// Bytes before the first local header (offsets account for them).
    pub prefix: Vec<u8>,
}

fn p16(o: &mut Vec<u8>, v: u16) {
    o.extend_from_slice(&v.to_le_bytes());
}
fn p32(o: &mut Vec<u8>, v: u32) {
    o.extend_from_slice(&v.to_le_bytes());
}
fn p64(o: &mut Vec<u8>, v: u64) {
    o.extend_from_slice(&v.to_le_bytes());
}

impl Zip {
    /// The members in local and central order, no ZIP64 end record.
    pub fn new(members: Vec<Member>) -> Zip {
        Zip {
            members,
            central_order: Vec::new(),
            zip64_end: false,
            end_sentinels: false,
            prefix: Vec::new(),
        }
    }

    /// The archive bytes and layout.
    pub fn build(&self) -> (Vec<u8>, Layout) {
        let mut o = self.prefix.clone();
        let mut lay = Layout::default();
        let streams: Vec<Vec<u8>> = self.members.iter().map(Member::stream).collect();
        for (m, s) in self.members.iter().zip(&streams) {
            lay.local.push(o.len() as u64);
            local(&mut o, m, s);
            lay.data.push(o.len() as u64);
            o.extend_from_slice(s);
            lay.data_end.push(o.len() as u64);
            if let Some(d) = m.descriptor {
                if d.signed {
                    p32(&mut o, 0x0807_4b50);
                }
                p32(&mut o, crc32(&m.data));
                if d.wide {
                    p64(&mut o, s.len() as u64);
                    p64(&mut o, m.data.len() as u64);
                } else {
                    p32(&mut o, s.len() as u32);
                    p32(&mut o, m.data.len() as u32);
                }
            }
            o.extend_from_slice(&m.trailing);
        }
        lay.cd = o.len() as u64;
        lay.central = vec![0; self.members.len()];
        let order: Vec<usize> = if self.central_order.is_empty() {
            (0..self.members.len()).collect()
        } else {
            self.central_order.clone()
        };
        for &i in &order {
            lay.central[i] = o.len() as u64;
            central(&mut o, &self.members[i], &streams[i], lay.local[i]);
        }
        let (cd, size, n) = (lay.cd, o.len() as u64 - lay.cd, order.len() as u64);
        if self.zip64_end {
            let at = o.len() as u64;
            lay.zip64_end = Some(at);
            p32(&mut o, 0x0606_4b50);
            p64(&mut o, 44);
            p16(&mut o, 0x032d);
            p16(&mut o, 45);
            p32(&mut o, 0);
            p32(&mut o, 0);
            p64(&mut o, n);
            p64(&mut o, n);
            p64(&mut o, size);
            p64(&mut o, cd);
            p32(&mut o, 0x0706_4b50);
            p32(&mut o, 0);
            p64(&mut o, at);
            p32(&mut o, 1);
        }
        lay.end = o.len() as u64;
        p32(&mut o, 0x0605_4b50);
        p32(&mut o, 0);
        let s = self.end_sentinels;
        p16(&mut o, if s { 0xffff } else { n as u16 });
        p16(&mut o, if s { 0xffff } else { n as u16 });
        p32(&mut o, if s { u32::MAX } else { size as u32 });
        p32(&mut o, if s { u32::MAX } else { cd as u32 });
        p16(&mut o, 0);
        (o, lay)
    }
}

fn flags(m: &Member) -> u16 {
    m.flags | if m.descriptor.is_some() { 8 } else { 0 }
}

fn local(o: &mut Vec<u8>, m: &Member, s: &[u8]) {
    let zero = m.descriptor.is_some_and(|d| d.zero_local);
    let (crc, c, u) = if zero {
        (0, 0, 0)
    } else {
        (crc32(&m.data), s.len() as u64, m.data.len() as u64)
    };
    p32(o, 0x0403_4b50);
    p16(o, m.version_needed(m.local_zip64));
    p16(o, flags(m));
    p16(o, m.method);
    p16(o, 0);
    p16(o, 0x21);
    p32(o, crc);
    if m.local_zip64 {
        p32(o, u32::MAX);
        p32(o, u32::MAX);
    } else {
        p32(o, c as u32);
        p32(o, u as u32);
    }
    let mut extra = Vec::new();
    if m.local_zip64 {
        p16(&mut extra, 1);
        p16(&mut extra, 16);
        p64(&mut extra, u);
        p64(&mut extra, c);
    }
    let extra = m.local_extra.clone().unwrap_or(extra);
    p16(o, m.name.len() as u16);
    p16(o, extra.len() as u16);
    o.extend_from_slice(&m.name);
    o.extend_from_slice(&extra);
}

fn central(o: &mut Vec<u8>, m: &Member, s: &[u8], offset: u64) {
    let z = m.central_zip64;
    p32(o, 0x0201_4b50);
    p16(o, m.made_by);
    p16(o, m.version_needed(m.local_zip64 || z));
    p16(o, flags(m));
    p16(o, m.method);
    p16(o, 0);
    p16(o, 0x21);
    p32(o, crc32(&m.data));
    p32(o, if z { u32::MAX } else { s.len() as u32 });
    p32(o, if z { u32::MAX } else { m.data.len() as u32 });
    let mut extra = Vec::new();
    if z {
        p16(&mut extra, 1);
        p16(&mut extra, 24);
        p64(&mut extra, m.data.len() as u64);
        p64(&mut extra, s.len() as u64);
        p64(&mut extra, offset);
    }
    let extra = m.central_extra.clone().unwrap_or(extra);
    p16(o, m.name.len() as u16);
    p16(o, extra.len() as u16);
    p16(o, m.comment.len() as u16);
    p16(o, 0);
    p16(o, 0);
    p32(o, m.external);
    p32(o, if z { u32::MAX } else { offset as u32 });
    o.extend_from_slice(&m.name);
    o.extend_from_slice(&extra);
    o.extend_from_slice(&m.comment);
}

/// Overwrites `bytes[at..]` with `with`.
pub fn patch(bytes: &mut [u8], at: u64, with: &[u8]) {
    let at = at as usize;
    bytes[at..at + with.len()].copy_from_slice(with);
}
