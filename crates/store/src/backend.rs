//! The one seam between the history and the database it lives in: a
//! [`Backend`] opens transactions, a [`Tx`] runs SQL in one. SQLite
//! (`sqlite`) and PostgreSQL (`postgres`) implement both; everything the
//! history does (saving, listing, live series, sync) is written once above
//! them, in SQL both understand (`dialect`), so the two cannot drift apart.

use crate::dialect::Cell;
use crate::Result;

/// One transaction: it commits with [`Tx::commit`] and rolls back when
/// dropped without it. Errors come back already turned into
/// [`crate::StoreError`]s that say what to do.
pub(crate) trait Tx {
    /// Runs one statement (with `?N` parameters); returns the rows changed.
    fn execute(&mut self, sql: &str, params: &[Cell]) -> Result<u64>;
    /// Runs one query (with `?N` parameters); returns its rows.
    fn query(&mut self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>>;
    fn commit(self: Box<Self>) -> Result<()>;
}

/// An open database.
pub(crate) trait Backend: Send {
    /// A transaction; `write` when it will write, so SQLite takes its write
    /// lock at once (no deadlock between two readers turning writers).
    fn begin(&mut self, write: bool) -> Result<Box<dyn Tx + '_>>;
}
