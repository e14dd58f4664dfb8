//! §8.3, the `samples.json` contract: `{"rows": [[cell, …], …]}`, each row as long as the
//! schema's inputs, each cell a number, string, boolean or null. Checked over the tokens
//! (see the parent module): the walk keeps one stand-in for the root, for `rows` and for
//! the first bad row and cell, whatever the number of rows.

use super::{Failure, Tokens, Unknown, shape, wrong_type};
use crate::json::{Cursor, Event, FieldError, JsonType, Problem, Token, Value};

/// The root's name in paths.
const ROOT: &str = "samples";
/// The only member of the root object.
const KNOWN: [&str; 1] = ["rows"];
const ROW_LENGTH: &str = "row length differs from the schema's inputs";
const CELL: &str = "cell must be a number, string, boolean or null";

/// What is wrong with the first bad row, in the order the rules check a row: its type,
/// then its length, then its cells in order.
enum RowProblem {
    /// Not an array (the row's stand-in).
    NotArray,
    /// Not as long as the schema's inputs.
    Length,
    /// The first cell that is a container, and its index.
    Cell(usize, Value),
}

/// The first bad row: its index, stand-in and problem.
struct BadRow {
    index: usize,
    row: Value,
    problem: RowProblem,
}

/// What the walk of `rows` found.
struct Rows {
    value: Value,
    first_bad: Option<BadRow>,
}

/// Checks §8.3 over `tokens`, against a schema with `inputs` inputs.
pub fn check(tokens: &mut Tokens<'_>, inputs: usize) -> Result<(), Failure> {
    let first = tokens.next()?;
    let root_value = shape(&first);
    let root = Cursor::root(&root_value, ROOT);
    if first.token != Token::StartObject {
        return Err(wrong_type(&root, JsonType::Object).into());
    }
    let mut unknown = Unknown::default();
    let mut rows = None;
    tokens.members(|t, name, value| {
        let name = name.value();
        unknown.see(&KNOWN, &name, &value);
        if name == "rows" {
            rows = Some(walk_rows(t, value, inputs)?);
        } else {
            t.skip(&value)?;
        }
        Ok(())
    })?;
    // The rules in their order: no unknown member, `rows` present, an array, each row.
    if let Some(e) = unknown.error(&root) {
        return Err(e.into());
    }
    let Some(rows) = rows else {
        return Err(root.member(&root_value, "rows").error(Problem::Missing).into());
    };
    let at = root.member(&rows.value, "rows");
    if rows.value.json_type() != JsonType::Array {
        return Err(wrong_type(&at, JsonType::Array).into());
    }
    match rows.first_bad {
        Some(bad) => Err(row_error(&at, &bad).into()),
        None => Ok(()),
    }
}

/// Reads `rows`, whose first token is `first`, keeping only its first bad row.
fn walk_rows<'a>(t: &mut Tokens<'a>, first: Event<'a>, inputs: usize) -> Result<Rows, Failure> {
    let value = shape(&first);
    if first.token != Token::StartArray {
        t.skip(&first)?;
        return Ok(Rows { value, first_bad: None });
    }
    let mut first_bad = None;
    t.elements(|t, index, row| {
        if first_bad.is_some() {
            t.skip(&row)?;
        } else {
            first_bad = walk_row(t, index, row, inputs)?;
        }
        Ok(())
    })?;
    Ok(Rows { value, first_bad })
}

/// Reads one row, whose first token is `row`; its problem, if it has one.
fn walk_row<'a>(t: &mut Tokens<'a>, index: usize, row: Event<'a>, inputs: usize) -> Result<Option<BadRow>, Failure> {
    let bad = |problem| BadRow {
        index,
        row: shape(&row),
        problem,
    };
    if row.token != Token::StartArray {
        t.skip(&row)?;
        return Ok(Some(bad(RowProblem::NotArray)));
    }
    let mut cells = 0usize;
    let mut first_container = None;
    t.elements(|t, j, cell| {
        cells = j.saturating_add(1);
        if first_container.is_none() && matches!(cell.token, Token::StartObject | Token::StartArray) {
            first_container = Some((j, shape(&cell)));
        }
        t.skip(&cell)?;
        Ok(())
    })?;
    // A row's length is checked before its cells.
    Ok(if cells != inputs {
        Some(bad(RowProblem::Length))
    } else {
        first_container.map(|(j, cell)| bad(RowProblem::Cell(j, cell)))
    })
}

/// The error about the first bad row, under the cursor of `rows`.
fn row_error(rows: &Cursor<'_, '_>, bad: &BadRow) -> FieldError {
    let row = rows.element(&bad.row, bad.index);
    match &bad.problem {
        RowProblem::NotArray => wrong_type(&row, JsonType::Array),
        RowProblem::Length => row.error(Problem::Rule(ROW_LENGTH)),
        RowProblem::Cell(j, cell) => row.element(cell, *j).error(Problem::Rule(CELL)),
    }
}
