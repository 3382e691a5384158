//! Reads and writes: the [`Direction`] of an I/O, and [`PerDir`], one value
//! for each, which is fio's `option=READ,WRITE` form (`bs=4k,64k`,
//! `rate=10m,5m`, `prioclass=...`).
//!
//! They sit in a file of their own, below the job and the options that use
//! them (placement, priorities), so those files need not import each other.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Read,
    Write,
}

/// One value for reads and one for writes: fio's `option=READ,WRITE` form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerDir<T> {
    pub read: T,
    pub write: T,
}

impl<T: Clone> PerDir<T> {
    pub fn both(value: T) -> PerDir<T> {
        PerDir {
            read: value.clone(),
            write: value,
        }
    }
}

impl<T> PerDir<T> {
    pub fn get(&self, dir: Direction) -> &T {
        match dir {
            Direction::Read => &self.read,
            Direction::Write => &self.write,
        }
    }
    pub fn map<U>(&self, f: impl Fn(&T) -> U) -> PerDir<U> {
        PerDir {
            read: f(&self.read),
            write: f(&self.write),
        }
    }
}
