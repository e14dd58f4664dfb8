//! §8.3, the `samples.json` contract: `{"rows": [[cell, …], …]}`, each row as long as the
//! schema's inputs, each cell a number, string, boolean or null. Checked as the tokens go
//! by (see the parent module): the sink keeps stand-ins for the root, for `rows` and for
//! the first bad row and cell, whatever the number of rows.

use super::{Contract, Unknown, container, root_object, scalar_type, shape, wrong_type};
use crate::json::{Cursor, FieldError, JsonType, Problem, Sink, Str, Token, Value};

/// The root's name in paths.
const ROOT: &str = "samples";
const ROW_LENGTH: &str = "row length differs from the schema's inputs";
const CELL: &str = "cell must be a number, string, boolean or null";

/// Levels of nesting, counted as open containers: inside the root, inside `rows`, inside a
/// row.
const IN_ROOT: usize = 1;
const IN_ROWS: usize = 2;
const IN_ROW: usize = 3;

/// What is wrong with the first bad row, in the order the rules check a row: its type,
/// then its length, then its cells in order.
enum RowProblem {
    NotArray,
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

/// The row being read: its index, offset, cell count and first container cell.
struct Row {
    index: usize,
    at: usize,
    cells: usize,
    container: Option<(usize, Value)>,
}

/// The §8.3 sink for a schema with `inputs` inputs.
pub(crate) struct Samples {
    inputs: usize,
    /// Containers open now.
    depth: usize,
    root: Option<Value>,
    unknown: Unknown,
    /// The member named last in the root is `rows`.
    named_rows: bool,
    rows: Option<Value>,
    /// `rows` is an array and open now.
    in_rows: bool,
    /// Rows seen so far.
    count: usize,
    row: Option<Row>,
    first_bad: Option<BadRow>,
}

impl Samples {
    /// The sink for a schema with `inputs` inputs.
    pub(crate) fn new(inputs: usize) -> Self {
        Samples {
            inputs,
            depth: 0,
            root: None,
            unknown: Unknown::default(),
            named_rows: false,
            rows: None,
            in_rows: false,
            count: 0,
            row: None,
            first_bad: None,
        }
    }

    /// A value of type `json_type` starts at `at` (for a container, before it opens).
    fn value(&mut self, at: usize, json_type: JsonType) {
        match self.depth {
            0 => self.root = Some(shape(at, json_type)),
            IN_ROOT => {
                self.unknown.value(at, json_type);
                if self.named_rows {
                    self.rows = Some(shape(at, json_type));
                }
            }
            IN_ROWS if self.in_rows => {
                let index = self.count;
                self.count = self.count.saturating_add(1);
                if json_type != JsonType::Array {
                    self.bad(index, shape(at, json_type), RowProblem::NotArray);
                } else if self.first_bad.is_none() {
                    self.row = Some(Row {
                        index,
                        at,
                        cells: 0,
                        container: None,
                    });
                }
            }
            IN_ROW => {
                if let Some(row) = &mut self.row {
                    if row.container.is_none() && matches!(json_type, JsonType::Array | JsonType::Object) {
                        row.container = Some((row.cells, shape(at, json_type)));
                    }
                    row.cells = row.cells.saturating_add(1);
                }
            }
            _ => {}
        }
    }

    /// Records the first bad row (rows are read in order, so the first recorded is first).
    fn bad(&mut self, index: usize, row: Value, problem: RowProblem) {
        if self.first_bad.is_none() {
            self.first_bad = Some(BadRow { index, row, problem });
        }
    }

    /// The row being read ends: a row's length is checked before its cells.
    fn end_row(&mut self) {
        let Some(row) = self.row.take() else {
            return;
        };
        let problem = if row.cells != self.inputs {
            RowProblem::Length
        } else if let Some((j, cell)) = row.container {
            RowProblem::Cell(j, cell)
        } else {
            return;
        };
        self.bad(row.index, shape(row.at, JsonType::Array), problem);
    }
}

impl<'a> Sink<'a> for Samples {
    #[inline(always)]
    fn open(&mut self, at: usize, object: bool) {
        self.value(at, container(object));
        if self.depth == IN_ROOT && self.named_rows && !object {
            self.in_rows = true;
        }
        self.depth = self.depth.saturating_add(1);
    }

    #[inline(always)]
    fn close(&mut self, _: usize) {
        self.depth = self.depth.saturating_sub(1);
        match self.depth {
            IN_ROWS => self.end_row(),
            IN_ROOT => self.in_rows = false,
            _ => {}
        }
    }

    #[inline(always)]
    fn name(&mut self, _: usize, name: Str<'a>) {
        if self.depth == IN_ROOT {
            let name = name.value();
            self.named_rows = name == "rows";
            self.unknown.name(&name, self.named_rows);
        }
    }

    #[inline(always)]
    fn scalar(&mut self, at: usize, token: Token<'a>) {
        self.value(at, scalar_type(&token));
    }
}

impl Contract<'_> for Samples {
    type Output = ();

    /// The rules in their order: the root an object without unknown members, `rows`
    /// present and an array, then each row.
    fn finish(self) -> Result<(), FieldError> {
        let root_value = root_object(self.root, ROOT, &self.unknown)?;
        let root = Cursor::root(&root_value, ROOT);
        let Some(rows) = self.rows else {
            return Err(root.member(&root_value, "rows").error(Problem::Missing));
        };
        let at = root.member(&rows, "rows");
        if rows.json_type() != JsonType::Array {
            return Err(wrong_type(&at, JsonType::Array));
        }
        match self.first_bad {
            Some(bad) => Err(row_error(&at, &bad)),
            None => Ok(()),
        }
    }
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
