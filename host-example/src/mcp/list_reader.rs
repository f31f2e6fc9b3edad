//! [`ListReader`]: stdio's input as rmcp's line reader reads it, less the
//! plain `tools/list` requests of an initialized session, which it answers
//! itself from the grant's cached page.
//!
//! rmcp's per-request machinery (parsing into its request type, a task
//! for the handler, channels back to its writer) costs about as much as
//! writing a 100-tool page, and a cached list needs none of it. So between
//! the input and rmcp's reader, this looks at each line before rmcp does,
//! and answers it only when all of these hold:
//!
//! - the session is initialized: this connection's `initialize` answer has
//!   gone out and the client's `notifications/initialized` has come in
//!   (both seen by [`super::line_transport::LineTransport`], so rmcp has
//!   read every line before it); until then rmcp answers every line;
//! - the line is a request of the plain shape ([`PlainList`]): anything
//!   else, `_meta` included, is rmcp's to check and answer;
//! - the grant as it is now has the page cached ([`CachedPages`], the same
//!   identity, grant and listing rmcp's handler uses): a cursor that is no
//!   page boundary of this grant, or a store that fails, is rmcp's.
//!
//! Lines it does not answer reach rmcp's reader unchanged, one line per
//! read, so a line is looked at only after rmcp has read the one before.
//!
//! The answer is written whole, under the output's lock every message
//! takes, from a line kept for the connection: `{"jsonrpc":"2.0",
//! "result":` the page's JSON `,"id":` made once per page, and per request
//! only the id and `}` appended (JSON-RPC does not order members). So the
//! page's bytes are copied only into the output.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::task::{Context, Poll, ready};

use rmcp::model::ProtocolVersion;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tool_core::BoxFuture;

use super::line_transport::{Output, write_line};
use super::list_request::PlainList;
use super::listing::Page;

/// The longest line looked at (with its `\n`); a plain `tools/list`
/// request is far shorter, and a longer line is rmcp's, handed on as it
/// arrives.
const LOOK: usize = 4096;

/// The input buffer: a line up to [`LOOK`] and room to read after it.
const BUFFER: usize = 4 * LOOK;

/// Where the fast path gets its pages: implemented by the server, with the
/// identity, grant and listing its `tools/list` handler uses.
pub(crate) trait CachedPages: Send + Sync + 'static {
    /// The cached page following `cursor` of the grant as it is now, or
    /// `None` to leave the request to rmcp.
    fn cached_page<'a>(&'a self, cursor: Option<&'a str>) -> BoxFuture<'a, Option<Arc<Page>>>;
}

/// What the transport has seen of the session's lifecycle.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// 0 until the `initialize` answer is written, then [`LEGACY`] or
    /// [`CURRENT`].
    revision: AtomicU8,
    initialized: AtomicBool,
}

/// Before 2026-07-28: results lose `resultType` (rmcp's adjustment).
const LEGACY: u8 = 1;
const CURRENT: u8 = 2;

impl Session {
    /// The `initialize` answer going out names `version`.
    pub(crate) fn negotiated(&self, version: &ProtocolVersion) {
        // ISO dates compare as strings, as rmcp compares them.
        let revision = if version.as_str() >= ProtocolVersion::V_2026_07_28.as_str() {
            CURRENT
        } else {
            LEGACY
        };
        self.revision.store(revision, Ordering::Release);
    }

    /// The client's `notifications/initialized` came in.
    pub(crate) fn initialized(&self) {
        self.initialized.store(true, Ordering::Release);
    }

    /// `Some(legacy)` once the session is initialized.
    fn ready(&self) -> Option<bool> {
        if !self.initialized.load(Ordering::Acquire) {
            return None;
        }
        match self.revision.load(Ordering::Acquire) {
            LEGACY => Some(true),
            CURRENT => Some(false),
            _ => None,
        }
    }
}

/// What a fast answer needs, shared by every request of the connection.
pub(crate) struct Answerer<W> {
    pub(crate) pages: Arc<dyn CachedPages>,
    pub(crate) output: Output<W>,
    pub(crate) session: Arc<Session>,
}

/// The connection's answer line and the request being answered.
#[derive(Default)]
struct Reply {
    /// `{"jsonrpc":"2.0","result":` page `,"id":`, then the last id and `}\n`.
    line: Vec<u8>,
    /// The page and wire shape `line` was made for, and its length up to
    /// the id.
    made_for: Option<(Arc<Page>, bool)>,
    head: usize,
    /// The request's id as JSON, and its cursor.
    id: Vec<u8>,
    cursor: Option<String>,
}

impl Reply {
    fn take_request(&mut self, request: &PlainList<'_>) {
        self.id.clear();
        request.id.write_json(&mut self.id);
        self.cursor = request.cursor.map(|cursor| {
            let mut owned = self.cursor.take().unwrap_or_default();
            owned.clear();
            owned.push_str(cursor);
            owned
        });
    }

    /// Makes `line` the answer with `page` (for a peer before 2026-07-28
    /// if `legacy`); `false` if the page has no JSON.
    fn answer_with(&mut self, page: Arc<Page>, legacy: bool) -> bool {
        let same = matches!(&self.made_for, Some((made, was)) if Arc::ptr_eq(made, &page) && *was == legacy);
        if !same {
            let Some(json) = page.json(legacy) else {
                return false;
            };
            self.line.clear();
            self.line.reserve(json.len() + 64);
            self.line
                .extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"result\":");
            self.line.extend_from_slice(json);
            self.line.extend_from_slice(b",\"id\":");
            self.head = self.line.len();
            self.made_for = Some((page, legacy));
        }
        self.line.truncate(self.head);
        self.line.extend_from_slice(&self.id);
        self.line.extend_from_slice(b"}\n");
        true
    }
}

/// Answers the request in `reply` if its page is cached: `(reply, true)`
/// once written, `(reply, false)` to hand the line to rmcp.
async fn answer<W: AsyncWrite + Send + Unpin + 'static>(
    answerer: Arc<Answerer<W>>,
    mut reply: Reply,
    legacy: bool,
) -> (Reply, bool) {
    let page = answerer.pages.cached_page(reply.cursor.as_deref()).await;
    let Some(page) = page else {
        return (reply, false);
    };
    if !reply.answer_with(page, legacy) {
        return (reply, false);
    }
    if let Err(error) = write_line(&answerer.output, &reply.line).await {
        // As rmcp's own answers: the client is gone.
        tracing::debug!(target: "host_example::mcp", %error, "could not write a tools/list answer");
    }
    (reply, true)
}

type Answering = BoxFuture<'static, (Reply, bool)>;

/// The input, less the `tools/list` requests it answers.
pub(crate) struct ListReader<R, W> {
    input: R,
    /// Read and not handed on: `buffer[start..end]`.
    buffer: Box<[u8]>,
    start: usize,
    end: usize,
    /// How many bytes from `start` go to rmcp as they are.
    hand_on: usize,
    /// The line under way is longer than [`LOOK`]: handed on to its end.
    long_line: bool,
    input_ended: bool,
    answerer: Arc<Answerer<W>>,
    /// The answer under way, and the length of its request's line.
    answering: Option<(Answering, usize)>,
    /// `None` while an answer is under way.
    reply: Option<Reply>,
}

impl<R, W> ListReader<R, W> {
    pub(crate) fn new(input: R, answerer: Arc<Answerer<W>>) -> Self {
        ListReader {
            input,
            buffer: vec![0; BUFFER].into_boxed_slice(),
            start: 0,
            end: 0,
            hand_on: 0,
            long_line: false,
            input_ended: false,
            answerer,
            answering: None,
            reply: Some(Reply::default()),
        }
    }
}

impl<R, W> AsyncRead for ListReader<R, W>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if let Some((answering, length)) = this.answering.as_mut() {
                let (reply, answered) = ready!(answering.as_mut().poll(cx));
                if answered {
                    this.start += *length;
                } else {
                    this.hand_on = *length;
                }
                this.answering = None;
                this.reply = Some(reply);
            }
            if this.hand_on > 0 {
                let n = this.hand_on.min(out.remaining());
                out.put_slice(&this.buffer[this.start..this.start + n]);
                this.start += n;
                this.hand_on -= n;
                return Poll::Ready(Ok(()));
            }
            let pending = &this.buffer[this.start..this.end];
            let newline = pending.iter().position(|&byte| byte == b'\n');
            if let Some(at) = newline {
                let line = &pending[..=at];
                if !std::mem::take(&mut this.long_line)
                    && line.len() <= LOOK
                    && let Some(legacy) = this.answerer.session.ready()
                    && let Some(request) = PlainList::parse(line)
                    && let Some(mut reply) = this.reply.take()
                {
                    reply.take_request(&request);
                    let answering = Box::pin(answer(Arc::clone(&this.answerer), reply, legacy));
                    this.answering = Some((answering, line.len()));
                } else {
                    this.hand_on = line.len();
                }
                continue;
            }
            if !pending.is_empty() && (this.long_line || pending.len() >= LOOK || this.input_ended)
            {
                // No plain request, or the end of the input: rmcp's to read.
                this.long_line = !this.input_ended;
                this.hand_on = pending.len();
                continue;
            }
            if this.input_ended {
                return Poll::Ready(Ok(()));
            }
            // What is pending is shorter than LOOK: after moving it to the
            // front, at least BUFFER - LOOK is free.
            if this.buffer.len() - this.end < LOOK {
                this.buffer.copy_within(this.start..this.end, 0);
                this.end -= this.start;
                this.start = 0;
            }
            let mut free = ReadBuf::new(&mut this.buffer[this.end..]);
            ready!(Pin::new(&mut this.input).poll_read(cx, &mut free))?;
            let read = free.filled().len();
            this.input_ended = read == 0;
            this.end += read;
        }
    }
}
