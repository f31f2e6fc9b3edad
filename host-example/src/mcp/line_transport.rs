//! [`LineTransport`]: stdio's transport, one JSON-RPC message a line, that
//! writes a `tools/list` page's pre-serialized JSON instead of serializing
//! the page again for every request.
//!
//! rmcp serializes whatever a handler returns, and its result types have no
//! field that could carry bytes already written. So the handler, when it
//! serves through this transport, answers `tools/list` with a stand-in
//! ([`Prepared::stand_in`]): an empty page whose `_meta` holds a number
//! under which the real page waits. rmcp checks the request and applies its
//! per-revision adjustments to the stand-in as to any result; this transport
//! then writes, in the stand-in's place, the page's JSON for that revision
//! (an older peer's stand-in has lost its `resultType`: the page's legacy
//! JSON, made by the same adjustments). Every other message is serialized
//! as rmcp's own transport does. Reading is rmcp's own transport's, over
//! [`ListReader`], which answers a plain `tools/list` of an initialized
//! session before rmcp sees it; this transport tells it when the session
//! is initialized.
//!
//! The page was chosen by the handler from the grant as it is at the
//! request, as a typed answer would have been; only its serialization is
//! reused. A stand-in whose page is no longer waiting (impossible short of
//! [`WAITING`] lists in flight at once), or whose page could not be
//! serialized, goes out as it is: an empty list, never another one's.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::RoleServer;
use rmcp::model::{
    ClientNotification, JsonObject, JsonRpcMessage, ListToolsResult, MetaObject, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _};

use super::list_reader::{Answerer, CachedPages, ListReader, Session};
use super::listing::Page;

/// The `_meta` key of a stand-in's number.
const STAND_IN: &str = "host-example/prepared-page";

/// How many pages may wait for their stand-in to be written; the oldest
/// is dropped beyond (its request was cancelled, or this many are in
/// flight).
const WAITING: usize = 1024;

/// Pages waiting for their stand-in to reach the transport.
#[derive(Debug, Default)]
pub(crate) struct Prepared {
    next: AtomicU64,
    waiting: Mutex<VecDeque<(u64, Arc<Page>)>>,
}

impl Prepared {
    /// A stand-in for `page`, which waits here until the transport writes
    /// the stand-in's answer.
    pub(crate) fn stand_in(&self, page: Arc<Page>) -> ListToolsResult {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        {
            let mut waiting = self.lock();
            if waiting.len() == WAITING {
                waiting.pop_front();
            }
            waiting.push_back((number, page));
        }
        let mut stand_in = ListToolsResult::with_all_items(Vec::new());
        let mut meta = JsonObject::new();
        meta.insert(STAND_IN.to_owned(), Value::from(number));
        stand_in.meta = Some(MetaObject(meta));
        stand_in
    }

    /// The page `result` stands in for, if it is a stand-in whose page
    /// still waits.
    fn take(&self, result: &ListToolsResult) -> Option<Arc<Page>> {
        let number = result.meta.as_ref()?.0.get(STAND_IN)?.as_u64()?;
        let mut waiting = self.lock();
        let at = waiting.iter().position(|(n, _)| *n == number);
        match at.and_then(|at| waiting.remove(at)) {
            Some((_, page)) => Some(page),
            None => {
                tracing::error!(target: "host_example::mcp", "a tools/list page was dropped before its answer; answered empty");
                None
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, Arc<Page>)>> {
        // One push, pop or removal under the lock: never half-written.
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The output, shared by every message; each is written whole under the
/// lock. `None` once closed.
pub(crate) type Output<W> = Arc<tokio::sync::Mutex<Option<W>>>;

/// stdio's transport: rmcp's line reader, and a writer that writes a
/// stand-in's page from its JSON.
pub(crate) struct LineTransport<R: AsyncRead + Unpin, W: AsyncWrite + Send + Unpin + 'static> {
    /// Reads, through the reader that answers plain `tools/list`
    /// requests itself; its writer carries only the answers it makes itself
    /// (to a line that is JSON but no message).
    read: AsyncRwTransport<RoleServer, ListReader<R, W>, Detached<W>>,
    output: Output<W>,
    prepared: Arc<Prepared>,
    /// What the reader needs to know of the lifecycle, seen here.
    session: Arc<Session>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// A transport over `input` and `output`; `pages` answers the plain
    /// `tools/list` requests of an initialized session before rmcp.
    pub(crate) fn new(
        input: R,
        output: W,
        prepared: Arc<Prepared>,
        pages: Arc<dyn CachedPages>,
    ) -> Self {
        let output = Arc::new(tokio::sync::Mutex::new(Some(output)));
        let session = Arc::new(Session::default());
        let detached = Detached {
            output: Arc::clone(&output),
            pending: Vec::new(),
        };
        let answerer = Arc::new(Answerer {
            pages,
            output: Arc::clone(&output),
            session: Arc::clone(&session),
        });
        LineTransport {
            read: AsyncRwTransport::new_server(ListReader::new(input, answerer), detached),
            output,
            prepared,
            session,
        }
    }

    /// The line `message` is written as.
    fn line(&self, message: &TxJsonRpcMessage<RoleServer>) -> Result<Vec<u8>, io::Error> {
        if let JsonRpcMessage::Response(response) = message
            && let ServerResult::InitializeResult(result) = &response.result
        {
            self.session.negotiated(&result.protocol_version);
        }
        if let JsonRpcMessage::Response(response) = message
            && let ServerResult::ListToolsResult(result) = &response.result
            && let Some(page) = self.prepared.take(result)
            // Only peers of a revision before 2026-07-28 lose `resultType`.
            && let Some(json) = page.json(result.result_type.is_none())
        {
            let id = serde_json::to_string(&response.id).map_err(io::Error::other)?;
            let mut line = Vec::with_capacity(json.len() + id.len() + 40);
            line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
            line.extend_from_slice(id.as_bytes());
            line.extend_from_slice(b",\"result\":");
            line.extend_from_slice(json);
            line.extend_from_slice(b"}\n");
            return Ok(line);
        }
        let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
        line.push(b'\n');
        Ok(line)
    }
}

/// Writes `line` whole and flushes.
pub(crate) async fn write_line<W: AsyncWrite + Unpin>(
    output: &Output<W>,
    line: &[u8],
) -> io::Result<()> {
    let mut output = output.lock().await;
    let Some(output) = output.as_mut() else {
        return Err(io::Error::new(
            io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    output.write_all(line).await?;
    output.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        message: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let line = self.line(&message);
        let output = Arc::clone(&self.output);
        async move { write_line(&output, &line?).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let message = self.read.receive().await;
        if let Some(JsonRpcMessage::Notification(notification)) = &message
            && let ClientNotification::InitializedNotification(_) = notification.notification
        {
            self.session.initialized();
        }
        message
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.read.close().await?;
        drop(self.output.lock().await.take());
        Ok(())
    }
}

/// The reader's writer: collects what it writes and, at each flush, hands
/// it whole to a task that writes it to the shared output, so it never
/// splits another message.
struct Detached<W> {
    output: Output<W>,
    pending: Vec<u8>,
}

impl<W: AsyncWrite + Send + Unpin + 'static> AsyncWrite for Detached<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.pending.extend_from_slice(bytes);
        Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            let output = Arc::clone(&self.output);
            tokio::spawn(async move {
                if let Err(error) = write_line(&output, &line).await {
                    tracing::debug!(target: "host_example::mcp", %error, "could not answer a malformed message");
                }
            });
        }
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}
