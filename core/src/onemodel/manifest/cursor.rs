//! Typed reads of the manifest tape that name the manifest path of whatever is wrong
//! (`spec/onemodel.md` §3.2, `spec/json.md` §7.2), such as `manifest.graph.nodes[3].inputs[1]`.
//! The same reads, failures, paths and offsets as [`json::Cursor`] over an owned value; the
//! path is a chain of borrowed steps, rendered only when a failure is reported.

use super::tape::{Children, Val, name_bit, same};
use crate::json::{self, FieldError, IntError, JsonType, Problem};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::Cell;
use core::fmt::Write;

/// The root of every manifest path.
pub(crate) const ROOT: &str = "manifest";

/// One step of a manifest path below [`ROOT`]. Member names are the reader's own (all
/// identifiers), so a name renders as `.name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seg {
    /// A member.
    Name(&'static str),
    /// An array element.
    Index(usize),
}

/// Renders `manifest` followed by `segs`.
pub(crate) fn render(segs: &[Seg]) -> String {
    let mut out = String::from(ROOT);
    for seg in segs {
        push_seg(&mut out, *seg);
    }
    out
}

fn push_seg(out: &mut String, seg: Seg) {
    match seg {
        Seg::Name(n) => {
            out.push('.');
            out.push_str(n);
        }
        Seg::Index(i) => {
            let _ = write!(out, "[{i}]");
        }
    }
}

#[derive(Clone, Copy)]
enum Step<'p> {
    /// The path of the cursor a walk started from.
    Base(&'p [Seg]),
    /// One step below the parent.
    Seg(Seg),
}

/// A manifest value together with the path that leads to it. Children borrow their parent,
/// so walking costs nothing; the path is rendered only for a failure.
#[derive(Clone)]
pub(crate) struct Cursor<'v, 'p> {
    value: Val<'v>,
    step: Step<'p>,
    parent: Option<&'p Cursor<'v, 'p>>,
    /// For an object: the tape index of the member after the one last looked up, where
    /// the next lookup starts (members are usually looked up in the order they appear).
    hint: Cell<u32>,
}

impl<'v, 'p> Cursor<'v, 'p> {
    /// The cursor at `value`, whose path is `manifest` followed by `base`.
    pub(crate) fn at(value: Val<'v>, base: &'p [Seg]) -> Self {
        Cursor {
            value,
            step: Step::Base(base),
            parent: None,
            hint: Cell::new(0),
        }
    }

    /// The value under the cursor.
    pub(crate) fn value(&self) -> Val<'v> {
        self.value
    }

    /// The path below [`ROOT`] as steps, for a walk that continues elsewhere.
    pub(crate) fn segs(&self) -> Vec<Seg> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<Seg>) {
        if let Some(parent) = self.parent {
            parent.collect(out);
        }
        match self.step {
            Step::Base(base) => out.extend_from_slice(base),
            Step::Seg(seg) => out.push(seg),
        }
    }

    /// The rendered path.
    pub(crate) fn path(&self) -> String {
        render(&self.segs())
    }

    /// A failure about this value.
    pub(crate) fn error(&self, problem: Problem) -> FieldError {
        FieldError {
            path: self.path(),
            offset: self.value.offset(),
            problem,
        }
    }

    fn wrong_type(&self, expected: JsonType) -> FieldError {
        self.error(Problem::WrongType {
            expected,
            found: self.value.json_type(),
        })
    }

    /// The cursor at `value`, one step `seg` below this one.
    pub(crate) fn child<'s>(&'s self, value: Val<'v>, seg: Seg) -> Cursor<'v, 's> {
        Cursor {
            value,
            step: Step::Seg(seg),
            parent: Some(self),
            hint: Cell::new(0),
        }
    }

    /// The members of this object.
    pub(crate) fn object(&self) -> Result<Children<'v>, FieldError> {
        self.value.members().ok_or_else(|| self.wrong_type(JsonType::Object))
    }

    /// The elements of this array and their number.
    pub(crate) fn array(&self) -> Result<(Children<'v>, usize), FieldError> {
        self.value.elements().ok_or_else(|| self.wrong_type(JsonType::Array))
    }

    /// The required member `name` of this object.
    pub(crate) fn field<'s>(&'s self, name: &'static str) -> Result<Cursor<'v, 's>, FieldError> {
        match self.opt_field(name)? {
            Some(c) => Ok(c),
            None => Err(FieldError {
                path: self.child(self.value, Seg::Name(name)).path(),
                offset: self.value.offset(),
                problem: Problem::Missing,
            }),
        }
    }

    /// The optional member `name` of this object.
    pub(crate) fn opt_field<'s>(&'s self, name: &'static str) -> Result<Option<Cursor<'v, 's>>, FieldError> {
        let mut members = self.object()?;
        if self.value.names() & name_bit(name.as_bytes()) == 0 {
            return Ok(None);
        }
        let first = self.value.first();
        members.skip_to(self.hint.get().max(first));
        Ok(members.find(first, name).map(|(v, after)| {
            self.hint.set(after);
            self.child(v, Seg::Name(name))
        }))
    }

    /// The members `names` of this object, found in one pass over its members (a table
    /// reads most of its members, so this beats one search per member). Each comes back as
    /// a [`Field`] that reads exactly as [`Cursor::field`] and [`Cursor::opt_field`] would:
    /// same cursor, same path, same failure when it is missing. Members not named are
    /// ignored; names are unique (`spec/json.md` §5), so each slot is filled at most once.
    pub(crate) fn fields<'s, const N: usize>(
        &'s self,
        names: [&'static str; N],
    ) -> Result<[Field<'v, 's>; N], FieldError> {
        let mut members = self.object()?;
        let mut out = names.map(|name| Field {
            object: self,
            name,
            value: None,
        });
        // Writers put members in table order, so the search starts after the last match.
        let mut next = 0;
        while let Some((name, value)) = members.next_member() {
            let mut i = next;
            for _ in 0..N {
                if i >= N {
                    i = 0;
                }
                if let Some(f) = out.get_mut(i)
                    && same(f.name.as_bytes(), name.as_bytes())
                {
                    f.value = Some(value);
                    next = i + 1;
                    break;
                }
                i += 1;
            }
        }
        Ok(out)
    }

    /// The member `name` as found earlier by [`Cursor::fields`] on this same object
    /// (`value`), for a table whose members are read at different times.
    pub(crate) fn found<'s>(&'s self, name: &'static str, value: Option<Val<'v>>) -> Field<'v, 's> {
        Field {
            object: self,
            name,
            value,
        }
    }

    /// The elements of this array, each with its index in the path.
    pub(crate) fn items<'s>(&'s self) -> Result<impl Iterator<Item = Cursor<'v, 's>> + 's, FieldError> {
        let (mut items, _) = self.array()?;
        Ok(core::iter::from_fn(move || items.next_value())
            .enumerate()
            .map(move |(i, v)| self.child(v, Seg::Index(i))))
    }

    /// The string value.
    pub(crate) fn str(&self) -> Result<&'v str, FieldError> {
        self.value.as_str().ok_or_else(|| self.wrong_type(JsonType::String))
    }

    /// The number's text as the manifest has it.
    pub(crate) fn lexeme(&self) -> Result<&'v str, FieldError> {
        self.value.lexeme().ok_or_else(|| self.wrong_type(JsonType::Number))
    }

    /// The exact unsigned integer (`spec/json.md` §4.2).
    pub(crate) fn u64(&self) -> Result<u64, FieldError> {
        json::lexeme_to_u64(self.lexeme()?).map_err(|e| self.int_error(e))
    }

    /// The exact signed integer (`spec/json.md` §4.2).
    pub(crate) fn i64(&self) -> Result<i64, FieldError> {
        json::lexeme_to_i64(self.lexeme()?).map_err(|e| self.int_error(e))
    }

    fn int_error(&self, e: IntError) -> FieldError {
        self.error(match e {
            IntError::NotAnInteger => Problem::NotAnInteger,
            IntError::OutOfRange => Problem::OutOfRange,
        })
    }
}

/// One member of an object as [`Cursor::fields`] found it: present or not.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field<'v, 's> {
    object: &'s Cursor<'v, 's>,
    name: &'static str,
    value: Option<Val<'v>>,
}

impl<'v, 's> Field<'v, 's> {
    /// The member's name.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// The member's value, if present.
    pub(crate) fn value(&self) -> Option<Val<'v>> {
        self.value
    }

    /// The member's cursor, `None` when the object has no such member
    /// ([`Cursor::opt_field`]).
    pub(crate) fn opt(&self) -> Option<Cursor<'v, 's>> {
        let object: &'s Cursor<'v, 's> = self.object;
        self.value.map(|v| object.child(v, Seg::Name(self.name)))
    }

    /// The member's cursor; a missing member is reported at the object's offset with the
    /// member's path ([`Cursor::field`]).
    pub(crate) fn req(&self) -> Result<Cursor<'v, 's>, FieldError> {
        self.opt().ok_or_else(|| FieldError {
            path: self.object.child(self.object.value, Seg::Name(self.name)).path(),
            offset: self.object.value.offset(),
            problem: Problem::Missing,
        })
    }
}

impl core::fmt::Debug for Cursor<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Cursor({})", self.path())
    }
}

/// The offset of the value at `segs` below `root`, or of the deepest value on the way that
/// exists (for failures found after the manifest was read, such as name resolution).
pub(crate) fn locate(root: Val<'_>, segs: &[Seg]) -> usize {
    let mut at = Some(root);
    let mut offset = root.offset();
    for seg in segs {
        at = at.and_then(|v| match *seg {
            Seg::Name(n) => v.get(n),
            Seg::Index(i) => v.index(i),
        });
        if let Some(v) = at {
            offset = v.offset();
        }
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::super::tape::Tape;
    use super::*;

    /// Every read fails exactly as `json::Cursor` over the owned value does: same problem,
    /// path and offset.
    #[test]
    fn failures_match_the_value_cursor() {
        let doc = r#"{"a":{"b":[1,"x",2.5,-1,18446744073709551616]},"s":"t"}"#;
        let tape = Tape::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap();
        let value = json::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap();
        let (t, v) = (Cursor::at(tape.root(), &[]), json::Cursor::root(&value, ROOT));
        assert_eq!(t.field("x").unwrap_err(), v.field("x").unwrap_err());
        assert_eq!(
            t.field("s").unwrap().u64().unwrap_err(),
            v.field("s").unwrap().u64().unwrap_err()
        );
        assert_eq!(
            t.field("s").unwrap().array().unwrap_err(),
            v.field("s").unwrap().array().unwrap_err()
        );
        let (ta, va) = (t.field("a").unwrap(), v.field("a").unwrap());
        assert_eq!(ta.str().unwrap_err(), va.str().unwrap_err());
        let (tb, vb) = (ta.field("b").unwrap(), va.field("b").unwrap());
        for (te, ve) in tb.items().unwrap().zip(vb.items().unwrap()) {
            assert_eq!(te.u64(), ve.u64());
            assert_eq!(te.i64(), ve.i64());
            assert_eq!(te.str().map_err(|e| e.path), ve.str().map_err(|e| e.path));
            assert_eq!(te.opt_field("q").map(|_| ()), ve.opt_field("q").map(|_| ()));
        }
        assert_eq!(tb.items().unwrap().count(), 5);
        assert_eq!(t.field("s").unwrap().str(), Ok("t"));
    }

    /// A one-pass read of several members gives, member by member, what single lookups
    /// give: the same cursors, paths and offsets, the same failure for a missing member
    /// and for a value that is not an object; escaped names match their text.
    #[test]
    fn fields_read_as_single_lookups() {
        let doc = r#"{"b":[1],"\u0061":{"x":1},"c":"s","zz":0}"#;
        let tape = Tape::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap();
        let base = [Seg::Name("graph"), Seg::Index(2)];
        let t = Cursor::at(tape.root(), &base);
        let names = ["a", "b", "d", "c"];
        let fields = t.fields(names).unwrap();
        let seen = |c: Cursor<'_, '_>| (c.path(), c.value().offset());
        for (f, name) in fields.iter().zip(names) {
            assert_eq!(f.name(), name);
            assert_eq!(f.req().map(seen), t.field(name).map(seen));
            assert_eq!(f.opt().map(seen), t.opt_field(name).unwrap().map(seen));
            assert_eq!(t.found(name, f.value()).req().map(seen), t.field(name).map(seen));
        }
        assert_eq!(fields[0].req().unwrap().path(), "manifest.graph[2].a");
        assert_eq!(fields[2].req().unwrap_err().offset, 0);
        let s = t.field("c").unwrap();
        assert_eq!(s.fields(["x"]).unwrap_err(), s.field("x").unwrap_err());
    }

    #[test]
    fn locate_finds_the_deepest_existing_value() {
        let doc = r#"{"graph":{"nodes":[{"op":"A"},{"op":"B","inputs":["x"]}]}}"#;
        let tape = Tape::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap();
        let at = |s: &str| doc.find(s).unwrap();
        let segs = [
            Seg::Name("graph"),
            Seg::Name("nodes"),
            Seg::Index(1),
            Seg::Name("inputs"),
            Seg::Index(0),
        ];
        assert_eq!(locate(tape.root(), &segs), at(r#""x""#));
        assert_eq!(locate(tape.root(), &segs[..3]), at(r#"{"op":"B""#));
        let missing = [
            Seg::Name("graph"),
            Seg::Name("nodes"),
            Seg::Index(1),
            Seg::Name("outputs"),
        ];
        assert_eq!(locate(tape.root(), &missing), at(r#"{"op":"B""#));
        assert_eq!(render(&segs), "manifest.graph.nodes[1].inputs[0]");
    }
}
