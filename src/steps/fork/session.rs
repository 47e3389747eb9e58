//! The life of one fork as four steps: launch, wait until connected, release, finish.
//!
//! Criterion connects as soon as the benchmark constructs its first `Criterion` and then blocks
//! until the runner hello arrives. So between [`RunningFork::wait_until_connected`] and
//! [`RunningFork::release`] the benchmark is parked before any benchmark code ran: duet mode
//! parks two forks and releases them back to back. [`run_fork`](super::run_fork) simply runs
//! the four steps in order.
//!
//! Everything is polled with short timeouts (at most [`POLL_INTERVAL`]) so that an interrupt, a
//! cancellation, a timeout or the death of the process is noticed quickly, without threads.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::deadlock;
use super::process::{BenchProcess, Launch, describe_status, usable_cpus};
use super::protocol::{self, Inbox, Measurement, Message, ProtocolError};
use super::steal::CpuTimes;
use super::{ForkError, ForkOutcome, ForkRequest, Leader};
use crate::model::samples::{FailureRecord, ForkRecord, ForkSettings};
use crate::util::interrupt::interrupted;

/// Longest wait between checks for interrupts, cancellation, timeouts and process exit.
pub const POLL_INTERVAL: Duration = Duration::from_millis(50);
/// How long to wait for the stderr pipe to close after the process died.
pub(super) const STDERR_GRACE: Duration = Duration::from_millis(500);
/// Criterion refuses sample sizes below this.
const MIN_SAMPLE_SIZE: usize = 10;

/// A launched benchmark process and our end of its connection.
pub struct RunningFork {
    benchmark_id: String,
    executable_name: String,
    cpu: Option<usize>,
    /// What the command line asked for, recorded with the samples.
    asked: ForkSettings,
    timeout: Duration,
    process: BenchProcess,
    listener: TcpListener,
    connection: Option<Connection>,
    started_at: Instant,
    started_unix_ms: u64,
    /// CPU times when the fork started, for its steal share.
    cpu_times_at_start: Option<CpuTimes>,
    deadline: Instant,
    progress: Progress,
    /// The helper was asked to stop the benchmark.
    stop_asked: bool,
    /// Since when the benchmark has been seen waiting for ever, and when that was last asked
    /// ([`deadlock`]).
    waiting_since: Option<Instant>,
    last_deadlock_check: Option<Instant>,
}

/// The socket to the benchmark and what has been read from it.
struct Connection {
    stream: TcpStream,
    inbox: Inbox,
    released: bool,
    /// The benchmark closed its end (or it broke); only the exit status is left to learn.
    closed: bool,
}

/// How far the benchmark got, from its messages.
#[derive(Default)]
struct Progress {
    measurement_started: Option<Instant>,
    completed: Option<(Measurement, Instant)>,
    /// Ids of other benchmarks that completed a measurement (should not happen with `--exact`).
    measured_instead: Vec<String>,
    /// Set once our benchmark's samples have arrived (see [`RunningFork::signal_when_measured`]).
    measured_signal: Option<Arc<AtomicBool>>,
    /// The unit of the samples, as criterion answered our request after them.
    unit: Option<String>,
    /// Receipt of `BeginningBenchmark` for our benchmark.
    began: Option<Instant>,
    /// After our benchmark's samples, ask for their unit but send no `Continue`: criterion
    /// waits for it, so nothing after the samples runs; then the helper in front of the
    /// benchmark ([`Leader::Helper`], the native probe's) is asked to stop it.
    hold_after_samples: bool,
}

/// A fork that has ended, with the window during which it measured.
#[derive(Debug)]
pub struct FinishedFork {
    pub outcome: ForkOutcome,
    /// From receipt of `MeasurementStart` to receipt of `MeasurementComplete`.
    pub measurement_window: Option<(Instant, Instant)>,
}

/// Why the finish loop stopped.
enum Ending {
    Exited,
    TimedOut,
    /// Connected, its benchmark not begun, every thread waiting for ever ([`deadlock`]).
    Deadlocked,
    Cancelled,
    Protocol(ProtocolError),
}

impl RunningFork {
    /// Opens the result socket and starts the benchmark process (pinned, in its own group).
    pub fn launch(req: &ForkRequest) -> Result<RunningFork, ForkError> {
        Self::launch_led(req, Leader::Benchmark)
    }

    /// [`launch`](Self::launch) with `leader` as what the executable is. A helper
    /// ([`Leader::Helper`], the native probe's) is asked to stop the benchmark as soon as its
    /// samples (and their unit) are in, while criterion still waits for our `Continue`: what
    /// runs after the samples (later groups, teardown) cannot change them, and is not run.
    pub fn launch_led(req: &ForkRequest, leader: Leader) -> Result<RunningFork, ForkError> {
        if interrupted() {
            return Err(ForkError::Interrupted);
        }
        check_launchable(req)?;
        let socket_error = |source| ForkError::Socket { source };
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(socket_error)?;
        listener.set_nonblocking(true).map_err(socket_error)?;
        let port = listener.local_addr().map_err(socket_error)?.port();

        let mut env = req.env.clone();
        env.push(("CARGO_CRITERION_PORT".into(), port.to_string().into()));
        env.push((
            "CRITERION_HOME".into(),
            req.criterion_home.clone().into_os_string(),
        ));
        let started_unix_ms = unix_ms_now();
        let started_at = Instant::now();
        let cpu_times_at_start = CpuTimes::now();
        let process = BenchProcess::spawn(Launch {
            executable: &req.executable,
            args: fork_arguments(req),
            cwd: &req.cwd,
            env,
            cpu: req.cpu,
            barrier: None,
            on_line: None,
        })
        .map_err(|source| ForkError::Launch {
            executable: req.executable.display().to_string(),
            source,
        })?;
        Ok(RunningFork {
            benchmark_id: req.benchmark_id.clone(),
            asked: asked_settings(req),
            executable_name: executable_name(&req.executable),
            cpu: req.cpu,
            timeout: req.timeout,
            process,
            listener,
            connection: None,
            started_at,
            started_unix_ms,
            cpu_times_at_start,
            deadline: deadline_after(started_at, req.timeout),
            progress: Progress {
                hold_after_samples: leader == Leader::Helper,
                ..Progress::default()
            },
            stop_asked: false,
            waiting_since: None,
            last_deadlock_check: None,
        })
    }

    /// Waits until the benchmark connects (true), or until it can no longer: its process ended,
    /// its deadline passed or `cancel` was set (false; [`finish`](Self::finish) reports why).
    pub fn wait_until_connected(&mut self, cancel: &AtomicBool) -> Result<bool, ForkError> {
        loop {
            if self.connection.is_some() {
                return Ok(true);
            }
            self.check_interrupt()?;
            if cancel.load(Ordering::SeqCst) || self.process.has_exited() || self.past_deadline() {
                return Ok(false);
            }
            self.try_accept()?;
            if self.connection.is_none() {
                wait_readable(self.listener.as_raw_fd(), self.next_wait());
            }
        }
    }

    /// Sets `flag` as soon as the benchmark's samples have arrived, while the process may still
    /// be winding down (duet mode stops the other side's filler at that moment).
    pub fn signal_when_measured(&mut self, flag: Arc<AtomicBool>) {
        self.progress.measured_signal = Some(flag);
    }

    /// Sends the runner hello, which lets criterion start its benchmark. No-op if not connected
    /// or already released; a broken socket shows up in [`finish`](Self::finish).
    ///
    /// The timeout starts again here: time parked at a duet barrier, waiting for the other
    /// side to connect, is not the benchmark's.
    pub fn release(&mut self) {
        if let Some(connection) = self.connection.as_mut().filter(|c| !c.released) {
            self.deadline = deadline_after(Instant::now(), self.timeout);
            let deadline = self.deadline;
            connection.released = true;
            if write_fully(&mut connection.stream, &protocol::runner_hello(), deadline).is_err() {
                connection.closed = true;
            }
        }
    }

    /// Drives the fork to its end: reads its messages, answers `MeasurementComplete` with
    /// `Continue`, and waits for the process to exit (killing it on timeout or `cancel`).
    /// The process group is always killed and reaped before this returns.
    pub fn finish(mut self, cancel: &AtomicBool) -> Result<FinishedFork, ForkError> {
        let ending = loop {
            self.check_interrupt()?;
            if cancel.load(Ordering::SeqCst) {
                break Ending::Cancelled;
            }
            if self.past_deadline() {
                break Ending::TimedOut;
            }
            if self.connection.is_none() {
                self.try_accept()?;
                self.release();
            }
            if let Err(error) = self.pump() {
                break Ending::Protocol(error);
            }
            self.stop_helper_once_measured();
            if self.process.has_exited() {
                // Everything it wrote before dying is already in the socket buffer.
                match self.pump() {
                    Ok(()) => break Ending::Exited,
                    Err(error) => break Ending::Protocol(error),
                }
            }
            if self.waits_for_ever() {
                break Ending::Deadlocked;
            }
            self.wait_for_activity();
        };
        Ok(self.end(ending))
    }

    /// Whether the benchmark, connected and its benchmark not begun, has been seen waiting for
    /// ever ([`deadlock::waits_for_ever`]) for [`deadlock::DEADLOCK_SETTLE`]; asked at most
    /// twice a second.
    fn waits_for_ever(&mut self) -> bool {
        if self.connection.is_none() || self.progress.began.is_some() {
            self.waiting_since = None;
            return false;
        }
        let now = Instant::now();
        let asked_lately = self
            .last_deadlock_check
            .is_some_and(|at| now - at < Duration::from_millis(500));
        if !asked_lately {
            self.last_deadlock_check = Some(now);
            self.waiting_since = match deadlock::waits_for_ever(self.process.pid()) {
                true => Some(self.waiting_since.unwrap_or(now)),
                false => None,
            };
        }
        self.waiting_since
            .is_some_and(|since| now - since >= deadlock::DEADLOCK_SETTLE)
    }

    /// A helper leading the fork ([`Leader::Helper`]) is asked once to stop the benchmark
    /// (`SIGTERM`) when our samples and their unit are in; it then stops it, writes what it
    /// saw and exits, which ends the fork as an exit.
    fn stop_helper_once_measured(&mut self) {
        let measured = self.progress.completed.is_some() && self.progress.unit.is_some();
        if self.progress.hold_after_samples && measured && !self.stop_asked {
            self.stop_asked = true;
            self.process.signal_leader(libc::SIGTERM);
        }
    }

    /// Kills and reaps the process and turns what we learnt into the outcome.
    fn end(mut self, ending: Ending) -> FinishedFork {
        let cpu_wait_share = self.process.cpu_wait_share();
        let own_cpus = self.cpu.and_then(|cpu| self.process.own_cpus(cpu));
        let busy = self.process.busy_share(self.started_at);
        let status = self.process.kill_and_reap();
        let ended = Instant::now();
        let wall_ms = (ended - self.started_at).as_secs_f64() * 1e3;
        let outside_ms = match (self.progress.began, &self.progress.completed) {
            (Some(began), Some((_, completed))) => {
                Some(((began - self.started_at) + (ended - *completed)).as_secs_f64() * 1e3)
            }
            _ => None,
        };
        let steal_share = self
            .cpu_times_at_start
            .zip(CpuTimes::now())
            .and_then(|(start, end)| start.steal_share_until(&end));
        let stderr_tail = self.process.output_tail(STDERR_GRACE);
        let measurement_window =
            match (&self.progress.measurement_started, &self.progress.completed) {
                (Some(start), Some((_, end))) => Some((*start, *end)),
                _ => None,
            };
        let failure = |message: String| {
            ForkOutcome::Failed(FailureRecord {
                message,
                stderr_tail: stderr_tail.clone(),
            })
        };
        let outcome = match ending {
            Ending::Cancelled => failure(format!("{} was stopped by cargo-perfdiff", self.who())),
            Ending::Deadlocked => failure(deadlock::criterion_deadlock_message(&self.who())),
            Ending::TimedOut => failure(format!(
                "{} did not finish within the fork timeout of {} and was killed ({})",
                self.who(),
                format_duration(self.timeout),
                self.phase(busy)
            )),
            Ending::Protocol(error) => failure(format!("{}: {error}", self.who())),
            Ending::Exited => match status {
                Err(error) => failure(format!(
                    "{}: cannot learn its exit status: {error}",
                    self.who()
                )),
                Ok(status) if !status.success() => {
                    failure(self.describe_crash(status, &stderr_tail))
                }
                Ok(_) => match self.progress.completed.take() {
                    Some((measurement, _)) => ForkOutcome::Completed(Box::new(ForkRecord {
                        iters: measurement.iters,
                        times_ns: measurement.times_ns,
                        config: measurement.config,
                        asked: Some(self.asked.clone()),
                        cpu: self.cpu,
                        started_unix_ms: Some(self.started_unix_ms),
                        wall_ms: Some(wall_ms),
                        steal_share,
                        cpu_wait_share,
                        own_cpus,
                        unit: self.progress.unit.take().filter(|unit| unit != "ns"),
                        outside_ms,
                        ..ForkRecord::default()
                    })),
                    None => failure(self.describe_missing_measurement()),
                },
            },
        };
        FinishedFork {
            outcome,
            measurement_window,
        }
    }

    /// `benchmark `hash/mix` (demo-1a2b3c)`: how every failure message starts.
    fn who(&self) -> String {
        format!(
            "benchmark `{}` ({})",
            self.benchmark_id, self.executable_name
        )
    }

    /// Where the benchmark was when it was stopped at the timeout, and whether it was hung or
    /// still running there (`busy`: [`BenchProcess::busy_share`],
    /// [`still_running`](super::process::still_running)).
    fn phase(&self, busy: Option<f64>) -> String {
        let place = match (
            &self.connection,
            &self.progress.measurement_started,
            &self.progress.completed,
        ) {
            (None, _, _) => return "it never connected".to_string(),
            (Some(_), None, _) => "before or while warming up",
            (Some(_), Some(_), None) => "while measuring",
            (Some(_), Some(_), Some(_)) => "after measuring, before exiting",
        };
        match super::process::still_running(busy) {
            Some(running) => format!("{place}: {running}"),
            None => format!("hung {place}"),
        }
    }

    fn describe_crash(&self, status: std::process::ExitStatus, stderr_tail: &str) -> String {
        let what = if stderr_tail.contains("panicked at") {
            "panicked"
        } else {
            "failed"
        };
        let when = if self.progress.completed.is_some() {
            " after its measurement"
        } else {
            ""
        };
        format!(
            "{} {what}{when}: the process ended with {}",
            self.who(),
            describe_status(status)
        )
    }

    fn describe_missing_measurement(&self) -> String {
        if self.connection.is_none() {
            return format!(
                "{} exited without connecting to cargo-perfdiff; is it a criterion benchmark?",
                self.who()
            );
        }
        if !self.progress.measured_instead.is_empty() {
            return format!(
                "{} was not measured; the executable measured {} instead",
                self.who(),
                self.progress.measured_instead.join(", ")
            );
        }
        format!(
            "{} matched no benchmark: `{} --exact {}` measured nothing",
            self.who(),
            self.executable_name,
            self.benchmark_id
        )
    }

    fn check_interrupt(&mut self) -> Result<(), ForkError> {
        if interrupted() {
            let _ = self.process.kill_and_reap();
            return Err(ForkError::Interrupted);
        }
        Ok(())
    }

    fn past_deadline(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// The next poll timeout: the poll interval, or less if the deadline is nearer.
    fn next_wait(&self) -> Duration {
        self.deadline
            .saturating_duration_since(Instant::now())
            .min(POLL_INTERVAL)
    }

    /// Accepts the benchmark's connection if it has arrived.
    fn try_accept(&mut self) -> Result<(), ForkError> {
        if self.connection.is_some() {
            return Ok(());
        }
        match self.listener.accept() {
            Ok((stream, _)) => {
                let socket_error = |source| ForkError::Socket { source };
                stream.set_nonblocking(true).map_err(socket_error)?;
                stream.set_nodelay(true).map_err(socket_error)?;
                acknowledge_at_once(&stream);
                self.connection = Some(Connection {
                    stream,
                    inbox: Inbox::default(),
                    released: false,
                    closed: false,
                });
                Ok(())
            }
            Err(e) if is_transient(&e) => Ok(()),
            Err(source) => Err(ForkError::Socket { source }),
        }
    }

    /// Reads whatever has arrived and acts on every complete message.
    fn pump(&mut self) -> Result<(), ProtocolError> {
        let Some(connection) = self.connection.as_mut() else {
            return Ok(());
        };
        connection.read_available();
        while let Some(frame) = connection.inbox.next_frame()? {
            if let Some(hello) = connection.inbox.hello()
                && hello.protocol_format != 1
            {
                return Err(ProtocolError::Decode(format!(
                    "criterion {}.{}.{} speaks protocol format {}, which cargo-perfdiff does not know",
                    hello.criterion_version[0],
                    hello.criterion_version[1],
                    hello.criterion_version[2],
                    hello.protocol_format
                )));
            }
            let message = protocol::decode(&frame)?;
            self.progress
                .record(&self.benchmark_id, message, connection, self.deadline)?;
        }
        Ok(())
    }

    /// Sleeps until the socket (or listener) has data, or for at most one poll interval.
    fn wait_for_activity(&self) {
        let timeout = self.next_wait();
        match &self.connection {
            Some(connection) if !connection.closed => {
                wait_readable(connection.stream.as_raw_fd(), timeout)
            }
            Some(_) => std::thread::sleep(timeout.min(Duration::from_millis(5))),
            None => wait_readable(self.listener.as_raw_fd(), timeout),
        }
    }
}

impl Progress {
    fn record(
        &mut self,
        benchmark_id: &str,
        message: Message,
        connection: &mut Connection,
        deadline: Instant,
    ) -> Result<(), ProtocolError> {
        let received = Instant::now();
        // Criterion now waits for formatting requests: after our benchmark's samples we ask for
        // the unit they are in, otherwise we have none, so it may go on at once.
        let ours = |m: &Measurement| m.id == benchmark_id && self.completed.is_none();
        let answer = match &message {
            Message::MeasurementComplete(m) if ours(m) && self.hold_after_samples => {
                Some(protocol::unit_request())
            }
            Message::MeasurementComplete(m) if ours(m) => {
                Some(protocol::unit_request_then_continue())
            }
            m if m.awaits_continue() => Some(protocol::continue_frame()),
            _ => None,
        };
        if let Some(answer) = answer
            && write_fully(&mut connection.stream, &answer, deadline).is_err()
        {
            connection.closed = true;
        }
        match message {
            Message::ScaledValues { unit } => {
                self.unit.get_or_insert(unit);
            }
            Message::BeginningBenchmark { id } if id == benchmark_id => {
                self.began.get_or_insert(received);
            }
            Message::MeasurementStart { id } if id == benchmark_id => {
                self.measurement_started.get_or_insert(received);
            }
            Message::MeasurementComplete(measurement) => {
                if measurement.id != benchmark_id {
                    self.measured_instead.push(measurement.id);
                } else if self.completed.is_none() {
                    check_samples(&measurement)?;
                    self.completed = Some((measurement, received));
                    if let Some(flag) = &self.measured_signal {
                        flag.store(true, Ordering::SeqCst);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl Connection {
    /// Reads until the socket has nothing more right now; notes EOF and errors as closed.
    fn read_available(&mut self) {
        let mut chunk = [0u8; 64 * 1024];
        while !self.closed {
            match self.stream.read(&mut chunk) {
                Ok(0) => self.closed = true,
                Ok(n) => {
                    self.inbox.push(&chunk[..n]);
                    acknowledge_at_once(&self.stream);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => self.closed = true,
            }
        }
    }
}

/// Turns off delayed ACKs on our end of the socket until the next read.
///
/// Criterion writes each message as two small writes (length, then body) on a socket with
/// Nagle's algorithm on, so the body waits for our ACK of the length, which Linux delays by up to
/// 40 ms. That would delay every message we time (duet overlap) and stall criterion at each
/// point where it waits for our `Continue`. Linux clears `TCP_QUICKACK` again by itself, hence
/// after every read. Failure only costs latency, so it is ignored.
fn acknowledge_at_once(stream: &TcpStream) {
    let on: libc::c_int = 1;
    // SAFETY: setsockopt reads an int of the given size from a live local; the descriptor is
    // our open socket.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_QUICKACK,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

/// Samples we could not store: mismatched lengths or none at all.
fn check_samples(measurement: &Measurement) -> Result<(), ProtocolError> {
    if measurement.iters.is_empty() || measurement.iters.len() != measurement.times_ns.len() {
        return Err(ProtocolError::Decode(format!(
            "MeasurementComplete carried {} iteration counts and {} times",
            measurement.iters.len(),
            measurement.times_ns.len()
        )));
    }
    Ok(())
}

/// The settings [`fork_arguments`] asks for, as criterion receives them.
fn asked_settings(req: &ForkRequest) -> ForkSettings {
    let ms = |d: Duration| req.dialect().sent_duration(d).as_secs_f64() * 1000.0;
    ForkSettings {
        sample_size: req.sample_size.max(MIN_SAMPLE_SIZE),
        warm_up_ms: ms(req.warm_up),
        measurement_ms: ms(req.measurement),
        sampling: None,
    }
}

/// The command line of one fork.
fn fork_arguments(req: &ForkRequest) -> Vec<std::ffi::OsString> {
    let dialect = req.dialect();
    let seconds = |d: Duration| dialect.seconds(d);
    let mut args = vec!["--bench".to_string()];
    args.extend(dialect.select(&req.benchmark_id));
    args.extend([
        "--warm-up-time".to_string(),
        seconds(req.warm_up),
        "--measurement-time".to_string(),
        seconds(req.measurement),
        "--sample-size".to_string(),
        req.sample_size.max(MIN_SAMPLE_SIZE).to_string(),
    ]);
    args.into_iter().map(Into::into).collect()
}

/// Writes all of `bytes` to a non-blocking socket, waiting for room until `deadline`.
fn write_fully(stream: &mut TcpStream, mut bytes: &[u8], deadline: Instant) -> io::Result<()> {
    while !bytes.is_empty() {
        match stream.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(io::ErrorKind::TimedOut.into());
                }
                wait_for(stream.as_raw_fd(), libc::POLLOUT, POLL_INTERVAL);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn wait_readable(fd: RawFd, timeout: Duration) {
    wait_for(fd, libc::POLLIN, timeout);
}

/// Blocks until `fd` is ready for `events` (or has an error/hang-up), or `timeout` passes.
fn wait_for(fd: RawFd, events: libc::c_short, timeout: Duration) {
    let mut poll_fd = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    let millis = timeout.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd for a descriptor we own, for the duration of the call. Errors
    // (EINTR) only shorten the wait; the caller re-checks everything.
    unsafe {
        libc::poll(&mut poll_fd, 1, millis);
    }
}

/// Accept errors that mean "nothing yet" or "that one went away, try again".
fn is_transient(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted
    )
}

/// `start + timeout`, saturating: an absurdly large timeout means "never" rather than a panic.
/// Whether a fork of `req` can be started: its CPU usable, its working directory there.
pub(super) fn check_launchable(req: &ForkRequest) -> Result<(), ForkError> {
    if let Some(cpu) = req.cpu {
        let usable = usable_cpus();
        if !usable.contains(&cpu) {
            return Err(ForkError::CpuNotUsable { cpu, usable });
        }
    }
    if !req.cwd.is_dir() {
        return Err(ForkError::Launch {
            executable: req.executable.display().to_string(),
            source: io::Error::new(
                io::ErrorKind::NotFound,
                format!("working directory {} does not exist", req.cwd.display()),
            ),
        });
    }
    Ok(())
}

/// The file name of an executable, as failure messages name it.
pub(super) fn executable_name(executable: &std::path::Path) -> String {
    executable.file_name().map_or_else(
        || executable.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

pub(super) fn deadline_after(start: Instant, timeout: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    start.checked_add(timeout.min(CENTURY)).unwrap_or(start)
}

/// Now, as Unix time in milliseconds (0 on a clock before 1970).
pub fn unix_ms_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `2s`, `1.5s`, `300ms`.
pub(super) fn format_duration(duration: Duration) -> String {
    if duration >= Duration::from_secs(1) {
        format!("{}s", duration.as_secs_f64())
    } else {
        format!("{}ms", duration.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::harness::Harness;

    fn request() -> ForkRequest {
        ForkRequest {
            executable: "/bin/true".into(),
            cwd: "/".into(),
            env: vec![],
            benchmark_id: "g/f".into(),
            harness: Default::default(),
            warm_up: Duration::from_millis(50),
            measurement: Duration::from_millis(1500),
            sample_size: 3,
            harness_sample_size: None,
            timeout: Duration::from_secs(5),
            criterion_home: "/nonexistent".into(),
            cpu: None,
            command: None,
        }
    }

    #[test]
    fn criterion_0_3_and_0_4_get_an_anchored_escaped_regex_and_their_kind_of_seconds() {
        // 0.3: whole seconds, rounded up, never zero; 0.4: the 0.05 s and 1.5 s asked for.
        for (dialect, warm_up, measurement) in [
            (crate::model::harness::CliDialect::Criterion03, "1", "2"),
            (
                crate::model::harness::CliDialect::Criterion04,
                "0.05",
                "1.5",
            ),
        ] {
            let req = ForkRequest {
                benchmark_id: "extend 4 bytes/a+b (x)".into(),
                harness: Harness::Criterion(dialect),
                ..request()
            };
            let args = fork_arguments(&req);
            let args: Vec<_> = args.iter().map(|a| a.to_str().unwrap()).collect();
            assert_eq!(
                &args[..6],
                [
                    "--bench",
                    r"^extend 4 bytes/a\+b \(x\)$",
                    "--warm-up-time",
                    warm_up,
                    "--measurement-time",
                    measurement
                ],
                "{dialect:?}"
            );
        }
    }

    #[test]
    fn arguments_select_one_benchmark_with_fractional_seconds() {
        let args = fork_arguments(&request());
        let args: Vec<_> = args.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            args,
            [
                "--bench",
                "--exact",
                "g/f",
                "--warm-up-time",
                "0.05",
                "--measurement-time",
                "1.5",
                "--sample-size",
                "10"
            ]
        );
    }

    #[test]
    fn the_settings_recorded_as_asked_are_those_sent() {
        // 0.05 s and 1.5 s as sent to criterion 0.5 and 0.4, and as whole seconds to 0.3; the
        // sample size raised to criterion's minimum of 10 alike.
        for (dialect, warm_up_ms, measurement_ms) in [
            (crate::model::harness::CliDialect::Current, 50.0, 1500.0),
            (crate::model::harness::CliDialect::Criterion04, 50.0, 1500.0),
            (
                crate::model::harness::CliDialect::Criterion03,
                1000.0,
                2000.0,
            ),
        ] {
            let req = ForkRequest {
                harness: Harness::Criterion(dialect),
                ..request()
            };
            let expected = ForkSettings {
                sample_size: 10,
                warm_up_ms,
                measurement_ms,
                sampling: None,
            };
            assert_eq!(asked_settings(&req), expected, "{dialect:?}");
        }
    }

    #[test]
    fn a_process_that_never_connects_fails_clearly() {
        let outcome = super::super::run_fork(&request()).unwrap();
        let failure = outcome.failure().expect("must fail");
        assert!(failure.message.contains("`g/f`"), "{}", failure.message);
        assert!(
            failure.message.contains("without connecting"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn a_missing_executable_stops_the_run() {
        let mut req = request();
        req.executable = "/no/such/bench-exe".into();
        let error = super::super::run_fork(&req).unwrap_err();
        assert!(matches!(error, ForkError::Launch { .. }), "{error}");
        assert!(error.to_string().contains("/no/such/bench-exe"), "{error}");
    }

    #[test]
    fn a_missing_working_directory_is_named() {
        let mut req = request();
        req.cwd = "/no/such/dir".into();
        let error = super::super::run_fork(&req).unwrap_err();
        assert!(
            error.to_string().contains("working directory /no/such/dir"),
            "{error}"
        );
    }

    #[test]
    fn an_endless_timeout_does_not_overflow() {
        let mut req = request();
        req.timeout = Duration::MAX;
        let outcome = super::super::run_fork(&req).unwrap();
        assert!(outcome.failure().is_some());
    }

    #[test]
    fn an_unusable_cpu_is_refused_before_launch() {
        let mut req = request();
        req.cpu = Some(100_000);
        let error = super::super::run_fork(&req).unwrap_err();
        assert!(
            matches!(error, ForkError::CpuNotUsable { cpu: 100_000, .. }),
            "{error}"
        );
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Duration::from_millis(300)), "300ms");
    }
}
