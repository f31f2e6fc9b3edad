//! This process's stdin and stdout as the stdio transport reads and writes
//! them.
//!
//! tokio's `stdin()` and `stdout()` run every read and every write on a
//! thread of its blocking pool: each message in and each answer out is one
//! more hand-off between threads, and on a small machine a hand-off (a
//! sleeping thread woken) costs more than the message's own work
//! (BENCHMARKS.md, "The stdio round trip without the pool's pings"). A
//! pipe, which is what a client that starts the host hands it, can be read
//! and written without blocking, through the runtime's own poller:
//! `tokio::net::unix::pipe` does that. Anything else (a file, a terminal,
//! a socket) is read and written through tokio's as before.
//!
//! Made non-blocking is the pipe's end as this process opened it, which
//! every copy of that end shares. So stdout is not taken this way when
//! stderr is the same pipe (`2>&1`): a write to stderr that would block
//! would then fail instead. The host starts no child processes that could
//! inherit either end.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::MetadataExt as _;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

/// Stdin: the pipe through the runtime's poller, or tokio's `stdin()`.
/// Inside the runtime (the pipe is registered with it).
pub(crate) fn input() -> Box<dyn AsyncRead + Send + Unpin> {
    match duplicate(io::stdin().as_fd()).and_then(pipe::Receiver::from_file) {
        Ok(pipe) => Box::new(pipe),
        Err(_) => Box::new(tokio::io::stdin()),
    }
}

/// Stdout: the pipe through the runtime's poller unless stderr shares it,
/// or tokio's `stdout()`. Inside the runtime.
pub(crate) fn output() -> Box<dyn AsyncWrite + Send + Unpin> {
    if !same_file(io::stdout().as_fd(), io::stderr().as_fd())
        && let Ok(pipe) = duplicate(io::stdout().as_fd()).and_then(pipe::Sender::from_file)
    {
        return Box::new(pipe);
    }
    Box::new(tokio::io::stdout())
}

/// A handle of its own on `fd`'s open file.
fn duplicate(fd: BorrowedFd<'_>) -> io::Result<File> {
    Ok(File::from(fd.try_clone_to_owned()?))
}

/// Whether `a` and `b` are the same file (the same pipe); `true` when
/// either cannot be looked at, which keeps tokio's way.
fn same_file(a: BorrowedFd<'_>, b: BorrowedFd<'_>) -> bool {
    let identity = |fd| {
        duplicate(fd)
            .and_then(|file| file.metadata())
            .map(|metadata| (metadata.dev(), metadata.ino()))
    };
    match (identity(a), identity(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => true,
    }
}
