//! The runner side of criterion's cargo-criterion socket protocol, written from its description.
//!
//! Why this protocol: connected to a runner, criterion hands over the raw samples of every
//! benchmark (`iters` and `times` per sample), does no analysis of its own and writes no report
//! files. That gives us exactly the data we analyse, unrounded, without parsing human output and
//! without touching the user's `target/criterion`.
//!
//! The exchange, after the benchmark connects to `127.0.0.1:$CARGO_CRITERION_PORT`:
//! 1. we send the runner hello: `b"cargo-criterion"` and three version bytes. Criterion blocks
//!    until it arrives, which is what lets duet mode release two benchmarks together;
//! 2. it answers with its hello: `b"Criterion"`, three version bytes, then the protocol version
//!    and format as big-endian `u16`s;
//! 3. from then on it sends messages framed as a big-endian `u32` length and a CBOR body, each
//!    a serde externally tagged enum (`{"MeasurementComplete": {...}}`, or a bare string for
//!    unit variants). After `MeasurementComplete` and after `FinishedBenchmarkGroup` it waits
//!    for value-formatting requests until we send `Continue`. After our benchmark's samples we
//!    first ask for the unit they are in (`ScaleForMachines`, answered by `ScaledValues`): a
//!    custom criterion `Measurement` may count cycles rather than nanoseconds.
//!
//! The decoding is deliberately tolerant: messages and fields we do not need are skipped, so a
//! newer criterion that adds some keeps working.

use ciborium::Value;
use serde::Deserialize;

use crate::model::samples::ForkSettings;

/// The magic bytes that open the runner hello.
const RUNNER_MAGIC: &[u8] = b"cargo-criterion";
/// The magic bytes that open the benchmark's hello.
const BENCHMARK_MAGIC: &[u8] = b"Criterion";
/// Length of the benchmark's hello: magic, 3 version bytes, protocol version, protocol format.
pub const BENCHMARK_HELLO_LEN: usize = BENCHMARK_MAGIC.len() + 3 + 2 + 2;
/// Frames larger than this are treated as a corrupt stream rather than allocated.
const MAX_FRAME_LEN: usize = 256 * 1024 * 1024;

/// The hello we send: our magic and our own version (criterion only logs it).
pub fn runner_hello() -> Vec<u8> {
    let version = |text: &str| text.parse::<u8>().unwrap_or(0);
    let mut hello = RUNNER_MAGIC.to_vec();
    hello.push(version(env!("CARGO_PKG_VERSION_MAJOR")));
    hello.push(version(env!("CARGO_PKG_VERSION_MINOR")));
    hello.push(version(env!("CARGO_PKG_VERSION_PATCH")));
    hello
}

/// The framed `Continue` message that ends criterion's value-formatting loop.
pub fn continue_frame() -> Vec<u8> {
    frame(&Value::Text("Continue".into()))
}

/// The framed `ScaleForMachines` request with no values, then `Continue`: criterion answers the
/// request with `ScaledValues`, whose `unit` names what its raw values measure (`ns` for
/// criterion's wall time, `cycles` for `criterion-cycles-per-byte`, …), and then goes on.
/// Every criterion that speaks this protocol (0.3.4 and later) serves the request.
pub fn unit_request_then_continue() -> Vec<u8> {
    [unit_request(), continue_frame()].concat()
}

/// The framed `ScaleForMachines` request alone: criterion answers it and then waits for the
/// next request or `Continue` (the native probe's fork sends none, [`super::Leader::Helper`]).
pub fn unit_request() -> Vec<u8> {
    let request = Value::Map(vec![(
        Value::Text("ScaleForMachines".into()),
        Value::Map(vec![(
            Value::Text("values".into()),
            Value::Array(Vec::new()),
        )]),
    )]);
    frame(&request)
}

/// `body` in CBOR behind its big-endian `u32` length.
fn frame(body: &Value) -> Vec<u8> {
    let mut bytes = Vec::new();
    ciborium::into_writer(body, &mut bytes).expect("writing CBOR into a Vec cannot fail");
    let mut frame = (bytes.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&bytes);
    frame
}

/// What the benchmark told us about itself in its hello.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchmarkHello {
    /// Criterion's version (major, minor, patch).
    pub criterion_version: [u8; 3],
    pub protocol_version: u16,
    pub protocol_format: u16,
}

/// The stream is not criterion's protocol, or is corrupt.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProtocolError {
    #[error(
        "the process answered with {0:?} instead of criterion's hello (is it a criterion benchmark?)"
    )]
    NotCriterion(String),
    #[error("a message of {0} bytes is implausibly large; the stream is corrupt")]
    FrameTooLarge(usize),
    #[error("cannot decode a message: {0}")]
    Decode(String),
}

/// Bytes received so far, cut into the hello and then into length-prefixed frames.
///
/// Reads from a non-blocking socket deliver arbitrary pieces; this keeps the partial rest until
/// the next read completes it.
#[derive(Debug, Default)]
pub struct Inbox {
    buffer: Vec<u8>,
    hello: Option<BenchmarkHello>,
}

impl Inbox {
    /// Appends freshly read bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The benchmark's hello, once it has been received.
    pub fn hello(&self) -> Option<BenchmarkHello> {
        self.hello
    }

    /// The next complete message body, if one has arrived. The hello is consumed first.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, ProtocolError> {
        if self.hello.is_none() && !self.take_hello()? {
            return Ok(None);
        }
        let Some(length) = self.buffer.get(..4) else {
            return Ok(None);
        };
        let length = u32::from_be_bytes([length[0], length[1], length[2], length[3]]) as usize;
        if length > MAX_FRAME_LEN {
            return Err(ProtocolError::FrameTooLarge(length));
        }
        if self.buffer.len() < 4 + length {
            return Ok(None);
        }
        let frame = self.buffer[4..4 + length].to_vec();
        self.buffer.drain(..4 + length);
        Ok(Some(frame))
    }

    /// Parses the hello if it is complete; false while it is still incomplete.
    fn take_hello(&mut self) -> Result<bool, ProtocolError> {
        let magic_seen = self.buffer.len().min(BENCHMARK_MAGIC.len());
        if self.buffer[..magic_seen] != BENCHMARK_MAGIC[..magic_seen] {
            let shown = &self.buffer[..self.buffer.len().min(BENCHMARK_HELLO_LEN)];
            return Err(ProtocolError::NotCriterion(
                String::from_utf8_lossy(shown).into_owned(),
            ));
        }
        if self.buffer.len() < BENCHMARK_HELLO_LEN {
            return Ok(false);
        }
        let rest = &self.buffer[BENCHMARK_MAGIC.len()..BENCHMARK_HELLO_LEN];
        self.hello = Some(BenchmarkHello {
            criterion_version: [rest[0], rest[1], rest[2]],
            protocol_version: u16::from_be_bytes([rest[3], rest[4]]),
            protocol_format: u16::from_be_bytes([rest[5], rest[6]]),
        });
        self.buffer.drain(..BENCHMARK_HELLO_LEN);
        Ok(true)
    }
}

/// The messages a fork acts on; everything else is [`Message::Other`].
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    BeginningBenchmark {
        id: String,
    },
    MeasurementStart {
        id: String,
    },
    MeasurementComplete(Measurement),
    FinishedBenchmarkGroup,
    /// The answer to [`unit_request_then_continue`]: the unit of the raw values.
    ScaledValues {
        unit: String,
    },
    /// Any other message, by its tag (`Warmup`, `BeginningBenchmarkGroup`, …).
    Other(String),
}

/// The raw samples of one benchmark and the configuration criterion measured them with.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The benchmark's full id, `group/function/parameter`, composed as criterion does.
    pub id: String,
    pub iters: Vec<f64>,
    pub times_ns: Vec<f64>,
    /// `None` when the message carried no (readable) configuration.
    pub config: Option<ForkSettings>,
}

/// Decodes one message body.
pub fn decode(frame: &[u8]) -> Result<Message, ProtocolError> {
    let value: Value =
        ciborium::from_reader(frame).map_err(|e| ProtocolError::Decode(e.to_string()))?;
    let (tag, body) = match value {
        Value::Text(tag) => (tag, Value::Null),
        Value::Map(mut entries) if entries.len() == 1 => {
            let (key, body) = entries.pop().expect("one entry");
            match key {
                Value::Text(tag) => (tag, body),
                _ => return Ok(Message::Other(String::new())),
            }
        }
        _ => return Ok(Message::Other(String::new())),
    };
    let fields = |body: &Value| -> Result<_, ProtocolError> {
        body.deserialized::<WithId>()
            .map_err(|e| ProtocolError::Decode(format!("{tag}: {e}")))
    };
    Ok(match tag.as_str() {
        "BeginningBenchmark" => Message::BeginningBenchmark {
            id: fields(&body)?.id.full_id(),
        },
        "MeasurementStart" => Message::MeasurementStart {
            id: fields(&body)?.id.full_id(),
        },
        "MeasurementComplete" => {
            let complete: RawMeasurementComplete = body
                .deserialized()
                .map_err(|e| ProtocolError::Decode(format!("{tag}: {e}")))?;
            Message::MeasurementComplete(complete.into_measurement())
        }
        "FinishedBenchmarkGroup" => Message::FinishedBenchmarkGroup,
        "ScaledValues" => Message::ScaledValues {
            unit: body
                .deserialized::<RawScaledValues>()
                .map_err(|e| ProtocolError::Decode(format!("{tag}: {e}")))?
                .unit,
        },
        _ => Message::Other(tag),
    })
}

impl Message {
    /// Whether criterion now waits for value-formatting requests, which only `Continue` ends.
    pub fn awaits_continue(&self) -> bool {
        matches!(
            self,
            Message::MeasurementComplete(_) | Message::FinishedBenchmarkGroup
        )
    }
}

/// Any message whose body carries a benchmark id.
#[derive(Deserialize)]
struct WithId {
    id: RawBenchmarkId,
}

/// Criterion's serialised benchmark id.
#[derive(Deserialize)]
struct RawBenchmarkId {
    group_id: String,
    #[serde(default)]
    function_id: Option<String>,
    #[serde(default)]
    value_str: Option<String>,
}

impl RawBenchmarkId {
    /// The id as criterion's `--exact` filter matches it: the present parts joined by `/`.
    fn full_id(&self) -> String {
        [
            Some(&self.group_id),
            self.function_id.as_ref(),
            self.value_str.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("/")
    }
}

#[derive(Deserialize)]
struct RawScaledValues {
    unit: String,
}

#[derive(Deserialize)]
struct RawMeasurementComplete {
    id: RawBenchmarkId,
    iters: Vec<f64>,
    times: Vec<f64>,
    #[serde(default)]
    sampling_method: Option<Value>,
    #[serde(default)]
    benchmark_config: Option<Value>,
}

#[derive(Deserialize)]
struct RawBenchmarkConfig {
    sample_size: usize,
    warm_up_time: RawDuration,
    measurement_time: RawDuration,
}

#[derive(Deserialize)]
struct RawDuration {
    secs: u64,
    nanos: u32,
}

impl RawDuration {
    fn as_ms(&self) -> f64 {
        self.secs as f64 * 1e3 + f64::from(self.nanos) / 1e6
    }
}

impl RawMeasurementComplete {
    fn into_measurement(self) -> Measurement {
        let sampling = self
            .sampling_method
            .as_ref()
            .and_then(Value::as_text)
            .map(str::to_lowercase);
        // A configuration we cannot read costs us only the record of it, never the samples.
        let config = self
            .benchmark_config
            .and_then(|value| value.deserialized::<RawBenchmarkConfig>().ok())
            .map(|config| ForkSettings {
                sample_size: config.sample_size,
                warm_up_ms: config.warm_up_time.as_ms(),
                measurement_ms: config.measurement_time.as_ms(),
                sampling,
            });
        Measurement {
            id: self.id.full_id(),
            iters: self.iters,
            times_ns: self.times,
            config,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    // Stand-ins for what criterion serialises, written from the protocol description.
    #[derive(Serialize)]
    struct Id {
        group_id: String,
        function_id: Option<String>,
        value_str: Option<String>,
        throughput: Vec<u8>,
    }

    #[derive(Serialize)]
    struct Dur {
        secs: u64,
        nanos: u32,
    }

    #[derive(Serialize)]
    struct Config {
        confidence_level: f64,
        measurement_time: Dur,
        noise_threshold: f64,
        nresamples: usize,
        sample_size: usize,
        significance_level: f64,
        warm_up_time: Dur,
    }

    #[derive(Serialize)]
    enum Sent {
        BeginningBenchmarkGroup {
            group: String,
        },
        FinishedBenchmarkGroup {
            group: String,
        },
        MeasurementStart {
            id: Id,
            sample_count: u64,
            estimate_ns: f64,
            iter_count: u64,
        },
        MeasurementComplete {
            id: Id,
            iters: Vec<f64>,
            times: Vec<f64>,
            plot_config: (),
            sampling_method: &'static str,
            benchmark_config: Config,
            a_field_from_the_future: u8,
        },
        SomethingNew,
    }

    fn id(group: &str, function: Option<&str>, value: Option<&str>) -> Id {
        Id {
            group_id: group.into(),
            function_id: function.map(Into::into),
            value_str: value.map(Into::into),
            throughput: vec![],
        }
    }

    fn cbor(message: &Sent) -> Vec<u8> {
        let mut body = Vec::new();
        ciborium::into_writer(message, &mut body).unwrap();
        body
    }

    fn framed(message: &Sent) -> Vec<u8> {
        let body = cbor(message);
        let mut frame = (body.len() as u32).to_be_bytes().to_vec();
        frame.extend(body);
        frame
    }

    fn hello() -> Vec<u8> {
        let mut hello = b"Criterion".to_vec();
        hello.extend([0, 5, 1, 0, 1, 0, 1]);
        hello
    }

    #[test]
    fn measurement_complete_yields_samples_and_effective_config() {
        let message = Sent::MeasurementComplete {
            id: id("hash", Some("steady"), None),
            iters: vec![3.0, 6.0],
            times: vec![300.0, 610.0],
            plot_config: (),
            sampling_method: "Linear",
            benchmark_config: Config {
                confidence_level: 0.95,
                measurement_time: Dur {
                    secs: 1,
                    nanos: 500_000_000,
                },
                noise_threshold: 0.01,
                nresamples: 100_000,
                sample_size: 20,
                significance_level: 0.05,
                warm_up_time: Dur {
                    secs: 0,
                    nanos: 50_000_000,
                },
            },
            a_field_from_the_future: 7,
        };
        let Message::MeasurementComplete(m) = decode(&cbor(&message)).unwrap() else {
            panic!("not decoded as MeasurementComplete");
        };
        assert_eq!(m.id, "hash/steady");
        assert_eq!(m.iters, vec![3.0, 6.0]);
        assert_eq!(m.times_ns, vec![300.0, 610.0]);
        let config = m.config.unwrap();
        assert_eq!(config.sample_size, 20);
        assert_eq!(config.measurement_ms, 1500.0);
        assert_eq!(config.warm_up_ms, 50.0);
        assert_eq!(config.sampling.as_deref(), Some("linear"));
    }

    #[test]
    fn ids_are_joined_like_criterion_does() {
        let start = |id| Sent::MeasurementStart {
            id,
            sample_count: 10,
            estimate_ns: 1.0,
            iter_count: 55,
        };
        let decoded = |id| match decode(&cbor(&start(id))).unwrap() {
            Message::MeasurementStart { id } => id,
            other => panic!("{other:?}"),
        };
        assert_eq!(decoded(id("g", Some("f"), Some("8"))), "g/f/8");
        assert_eq!(decoded(id("g", None, Some("8"))), "g/8");
        assert_eq!(decoded(id("alone", None, None)), "alone");
    }

    #[test]
    fn unknown_messages_are_skipped_not_errors() {
        assert_eq!(
            decode(&cbor(&Sent::SomethingNew)).unwrap(),
            Message::Other("SomethingNew".into())
        );
        let group = Sent::BeginningBenchmarkGroup { group: "g".into() };
        assert_eq!(
            decode(&cbor(&group)).unwrap(),
            Message::Other("BeginningBenchmarkGroup".into())
        );
    }

    #[test]
    fn criterion_waits_after_a_measurement_and_after_a_group() {
        let finished = Sent::FinishedBenchmarkGroup { group: "g".into() };
        let decoded = decode(&cbor(&finished)).unwrap();
        assert_eq!(decoded, Message::FinishedBenchmarkGroup);
        assert!(decoded.awaits_continue());
        let group = Sent::BeginningBenchmarkGroup { group: "g".into() };
        assert!(!decode(&cbor(&group)).unwrap().awaits_continue());
    }

    #[test]
    fn garbage_is_a_decode_error() {
        assert!(matches!(
            decode(&[0xff, 0x00, 0x13]),
            Err(ProtocolError::Decode(_))
        ));
    }

    #[test]
    fn inbox_reassembles_hello_and_frames_from_arbitrary_pieces() {
        let mut stream = hello();
        stream.extend(framed(&Sent::SomethingNew));
        stream.extend(framed(&Sent::BeginningBenchmarkGroup { group: "g".into() }));
        let mut inbox = Inbox::default();
        let mut frames = Vec::new();
        for byte in &stream {
            inbox.push(std::slice::from_ref(byte));
            while let Some(frame) = inbox.next_frame().unwrap() {
                frames.push(decode(&frame).unwrap());
            }
        }
        assert_eq!(
            inbox.hello(),
            Some(BenchmarkHello {
                criterion_version: [0, 5, 1],
                protocol_version: 1,
                protocol_format: 1
            })
        );
        assert_eq!(
            frames,
            vec![
                Message::Other("SomethingNew".into()),
                Message::Other("BeginningBenchmarkGroup".into())
            ]
        );
    }

    #[test]
    fn a_stranger_on_the_socket_is_refused() {
        let mut inbox = Inbox::default();
        inbox.push(b"HTTP/1.1 200");
        assert!(matches!(
            inbox.next_frame(),
            Err(ProtocolError::NotCriterion(_))
        ));
    }

    #[test]
    fn runner_hello_and_continue_have_the_expected_shape() {
        let hello = runner_hello();
        assert_eq!(hello.len(), 18);
        assert!(hello.starts_with(b"cargo-criterion"));
        let frame = continue_frame();
        assert_eq!(&frame[..4], &(frame.len() as u32 - 4).to_be_bytes());
        let value: Value = ciborium::from_reader(&frame[4..]).unwrap();
        assert_eq!(value, Value::Text("Continue".into()));
    }

    #[test]
    fn the_unit_request_is_scale_for_machines_without_values_then_continue() {
        let bytes = unit_request_then_continue();
        let length = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
        let request: Value = ciborium::from_reader(&bytes[4..4 + length]).unwrap();
        let Value::Map(entries) = request else {
            panic!("{request:?}")
        };
        assert_eq!(entries[0].0, Value::Text("ScaleForMachines".into()));
        assert_eq!(
            entries[0].1,
            Value::Map(vec![(Value::Text("values".into()), Value::Array(vec![]))])
        );
        assert_eq!(&bytes[4 + length..], &continue_frame()[..]);
        // The probe's fork sends the request alone: criterion then waits, after the samples.
        assert_eq!(unit_request(), &bytes[..4 + length]);
    }

    #[test]
    fn scaled_values_carry_the_unit() {
        let body = Value::Map(vec![(
            Value::Text("ScaledValues".into()),
            Value::Map(vec![
                (Value::Text("scaled_values".into()), Value::Array(vec![])),
                (Value::Text("unit".into()), Value::Text("cycles".into())),
            ]),
        )]);
        let mut bytes = Vec::new();
        ciborium::into_writer(&body, &mut bytes).unwrap();
        assert_eq!(
            decode(&bytes).unwrap(),
            Message::ScaledValues {
                unit: "cycles".into()
            }
        );
    }
}
