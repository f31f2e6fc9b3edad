//! The binary started with a kill point armed, killed with SIGKILL once it
//! reaches it (or a little after), and the database it leaves.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use host_example::store::{RunPhase, Store};

use crate::backends::TestDb;
use crate::model::{Model, PROMPT};

/// One database, the binary pointed at it, and the model its runs ask.
pub struct Target {
    pub db: TestDb,
    model: Model,
}

/// What a kill left.
pub struct Killed {
    /// The kill point.
    pub point: String,
    /// Which kill of the point (its timing).
    pub kill: usize,
    /// Whether SIGKILL ended the process (a late kill may find it done).
    pub by_signal: bool,
}

/// When, after the point announced itself, the process is killed: the
/// first kill exactly there (it waits), then later and later while it
/// runs on.
fn delay(kill: usize) -> Option<Duration> {
    let step = u64::try_from(kill).unwrap_or(0).checked_sub(1)?;
    Some(Duration::from_micros(step * 1_500))
}

impl Target {
    pub fn sqlite() -> Target {
        Target::set_up(TestDb::sqlite())
    }

    pub fn postgres() -> Option<Target> {
        let runtime = runtime();
        runtime.block_on(TestDb::postgres()).map(Target::set_up)
    }

    fn set_up(db: TestDb) -> Target {
        let target = Target {
            db,
            model: Model::start(),
        };
        let model = target.model.setting();
        target.ok(&["--user", "admin", "settings", "set", "model", &model]);
        let tools = r#"{"update_page_metadata": {"state": "enabled"}}"#;
        target.ok(&["--user", "admin", "settings", "set", "tools", tools]);
        // Short leases: a killed process's runs are recovered a second
        // after it stopped renewing them.
        let worker = r#"{"concurrency": 2, "lease_seconds": 1}"#;
        target.ok(&["--user", "admin", "settings", "set", "worker", worker]);
        target
    }

    /// Starts `serve` on the database, whose worker recovers what the
    /// kills left once the killed processes' leases (1 s) ran out, waits
    /// until no run is left `running` or `resuming`, and stops it.
    pub fn recover(&self) {
        self.serve_until("no run left running or resuming", |rt, store| {
            let runs = rt.block_on(store.run_log().runs(1_000_000)).unwrap();
            !runs
                .iter()
                .any(|run| matches!(run.status, RunPhase::Running | RunPhase::Resuming))
        });
    }

    /// Starts `serve` on the database, waits (at most 30 s) until `done`
    /// says so, and stops it.
    pub fn serve_until(&self, what: &str, done: impl Fn(&tokio::runtime::Runtime, &Store) -> bool) {
        let mut serve = self
            .command(&["serve", "--addr", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (rt, store) = self.store();
        let mut reached = false;
        for _ in 0..300 {
            if done(&rt, &store) {
                reached = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = serve.kill();
        let _ = serve.wait();
        assert!(reached, "serve did not get to: {what}");
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_host-example"));
        command
            .env_remove("HOST_DATABASE_URL")
            .env_remove("HOST_USER")
            .env_remove("HOST_KILL_POINT")
            .env_remove("HOST_KILL_HIT")
            .env_remove("HOST_KILL_RUN_ON")
            .arg("--database")
            .arg(&self.db.url)
            .args(args);
        command
    }

    /// Runs the binary and expects success; its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let output = self.command(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{args:?}\nstdout: {stdout}\nstderr: {stderr}"
        );
        stdout
    }

    /// The arguments of a run by admin asking for `title` on page 2.
    pub fn run_args(&self, title: &str) -> Vec<String> {
        ["run", &format!("{PROMPT}{title}"), "--user", "admin"]
            .map(str::to_owned)
            .to_vec()
    }

    /// A run that proposes `title` for page 2 and waits; the proposal's id.
    pub fn suspended_run(&self, title: &str) -> String {
        let args = self.run_args(title);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.ok(&args);
        assert!(out.contains("waits for approval of proposal"), "{out}");
        let (rt, store) = self.store();
        let pending = rt.block_on(store.decisions().pending_proposals()).unwrap();
        let mut mine = pending
            .iter()
            .filter(|p| p.proposal.arguments()["title"] == title);
        let id = mine
            .next()
            .unwrap_or_else(|| panic!("no proposal of {title}: {pending:#?}"));
        assert!(mine.next().is_none(), "one proposal of {title}");
        id.proposal.id().as_str().to_owned()
    }

    /// Starts the binary with `args` and kill point `point` armed, waits
    /// until it is reached and kills the process with SIGKILL (at once for
    /// kill 0, after [`delay`] for the others, which run on).
    pub fn kill_at<S: AsRef<str>>(&self, args: &[S], point: &str, kill: usize) -> Killed {
        self.kill_at_hit(args, point, "1", kill)
    }

    /// [`Target::kill_at`] at the `hit`th time the point is reached.
    pub fn kill_at_hit<S: AsRef<str>>(
        &self,
        args: &[S],
        point: &str,
        hit: &str,
        kill: usize,
    ) -> Killed {
        let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        let wait = delay(kill);
        let mut command = self.command(&args);
        command
            .env("HOST_KILL_POINT", point)
            .env("HOST_KILL_HIT", hit)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if wait.is_some() {
            command.env("HOST_KILL_RUN_ON", "1");
        }
        let mut child = command.spawn().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let announced = format!("kill point {point} reached");
        let mut said = String::new();
        loop {
            let mut line = String::new();
            if stderr.read_line(&mut line).unwrap() == 0 {
                let status = child.wait().unwrap();
                panic!("{args:?} ended ({status}) before kill point {point}: {said}");
            }
            if line.contains(&announced) {
                break;
            }
            said.push_str(&line);
        }
        if let Some(wait) = wait {
            std::thread::sleep(wait);
        }
        // std's kill is SIGKILL on Unix: nothing is flushed or finished.
        let _ = child.kill();
        let status = child.wait().unwrap();
        // Drain what it said after the point, for a failure's message.
        let _ = stderr.read_to_string(&mut said);
        Killed {
            point: point.to_owned(),
            kill,
            by_signal: status.signal() == Some(9),
        }
    }

    /// The store over the database, as the test reads it.
    pub fn store(&self) -> (tokio::runtime::Runtime, Store) {
        let rt = runtime();
        let store = rt.block_on(Store::open(&self.db.url)).unwrap();
        (rt, store)
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}
