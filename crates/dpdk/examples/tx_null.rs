//! TX-only rate on one worker lcore: the Rust side of `benches/tx_null_vs_testpmd.sh`.
//!
//! ```text
//! tx_null [--frame-size 64] [--write frame|headers|prefilled] [--seconds 5] [--warmup 1]
//!         [--port net_null0] [--verify ROUNDS] -- <EAL arguments>
//! ```
//!
//! Per burst of 32, then one `rte_eth_tx_burst` (what the port does not take is retried):
//!
//! - `--write frame` (the default): one bulk allocation from an ordinary pool
//!   (`MbufBurst::fill_with`: `rte_mempool_get_bulk`, then per packet in one pass: the reset of
//!   the mbuf's first cache line, as `rte_pktmbuf_reset` does it), the packet length is set
//!   (`append`), the whole frame (Ethernet/IPv4/UDP headers and payload, `--frame-size` bytes) is
//!   copied from a template, and a 32-bit sequence number is written after the headers.
//! - `--write headers`: the same, but only the 42 bytes of headers are copied (what testpmd's
//!   txonly engine writes; the payload keeps whatever the buffer held).
//! - `--write prefilled`: one bulk allocation from a [`TemplatePool`] whose every mbuf holds the
//!   whole frame since the pool was created (`TemplatePool::fill`: `rte_mempool_get_bulk`, then
//!   per packet: a check of the mbuf's written mark, the reset of the data offset, lengths,
//!   offload flags, packet type and VLAN fields, the 8-byte patch region after the headers
//!   restored from the template, and a 64-bit sequence number written there). The payload is
//!   never written, yet every packet carries the whole frame.
//!
//! The rate is measured like testpmd's `Tx-pps`: the port's `opackets` counter read by the main
//! lcore at the start and end of the window, over the TSC time between the reads. It prints one
//! line: `tx_null frame=<bytes> write=<mode> seconds=<s> packets=<n> mpps=<rate>`.
//!
//! `--verify ROUNDS` measures nothing: it runs the same per-packet code on the main lcore into a
//! ring pair made in the process (no `--vdev` needed), receives every packet on the peer and
//! compares it with the template carrying its sequence number. Received mbufs are held until the
//! pool runs dry, so that each round sends every mbuf of the pool once. It prints
//! `tx_null verify frame=<bytes> write=<mode> packets=<n> complete=<n> incomplete=<n>` and
//! fails if a frame is incomplete in the `frame` and `prefilled` modes (in `headers` mode the
//! payload is whatever the buffers held, as with testpmd: counted, not a failure).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;
use std::time::{Duration, Instant};

use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, Error, Mbuf, MbufBurst, Mempool, Port, PortConfig, RxQueue, Socket,
    StopFlag, TemplatePool, TxQueue, tsc,
};

/// Ethernet + IPv4 + UDP headers.
const HEADERS: usize = 14 + 20 + 8;
/// The sequence number goes at the start of the UDP payload.
const SEQ_AT: usize = HEADERS;
/// Bytes of sequence number in the prefilled mode (the patch region).
const PREFILLED_SEQ: usize = 8;
/// Mbufs per pool and per-lcore cache, as testpmd gets them in the script.
const MBUFS: u32 = 8191;
const CACHE: u32 = 256;
const BURST: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Write {
    /// The whole frame copied into every mbuf.
    Frame,
    /// The 42 header bytes copied into every mbuf (testpmd's work).
    Headers,
    /// A template pool: the frame is in every mbuf already; only the sequence number is written.
    Prefilled,
}

impl Write {
    fn name(self) -> &'static str {
        match self {
            Write::Frame => "frame",
            Write::Headers => "headers",
            Write::Prefilled => "prefilled",
        }
    }
}

struct Args {
    frame_size: usize,
    write: Write,
    seconds: f64,
    warmup: f64,
    port: String,
    verify: Option<u32>,
    eal: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        frame_size: 64,
        write: Write::Frame,
        seconds: 5.0,
        warmup: 1.0,
        port: "net_null0".to_owned(),
        verify: None,
        eal: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--frame-size" => {
                args.frame_size = value(&a)?
                    .parse()
                    .map_err(|e| format!("--frame-size: {e}"))?
            }
            "--seconds" => {
                args.seconds = value(&a)?.parse().map_err(|e| format!("--seconds: {e}"))?
            }
            "--warmup" => args.warmup = value(&a)?.parse().map_err(|e| format!("--warmup: {e}"))?,
            "--port" => args.port = value(&a)?,
            "--verify" => {
                args.verify = Some(value(&a)?.parse().map_err(|e| format!("--verify: {e}"))?)
            }
            "--write" => {
                args.write = match value(&a)?.as_str() {
                    "frame" => Write::Frame,
                    "headers" => Write::Headers,
                    "prefilled" => Write::Prefilled,
                    other => return Err(format!("--write frame|headers|prefilled, not {other}")),
                }
            }
            "--" => {
                args.eal = it.collect();
                break;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if !(HEADERS + PREFILLED_SEQ..=1514).contains(&args.frame_size) {
        return Err(format!(
            "--frame-size must be {}..=1514",
            HEADERS + PREFILLED_SEQ
        ));
    }
    Ok(args)
}

/// A UDP/IPv4 frame of `len` bytes (no FCS) with valid IPv4 length and checksum.
fn template(len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x02]); // destination MAC
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x01]); // source MAC
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    let ip_len = (len - 14) as u16;
    let ip = &mut f[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip[8] = 64; // TTL
    ip[9] = 17; // UDP
    ip[12..16].copy_from_slice(&[198, 18, 0, 1]);
    ip[16..20].copy_from_slice(&[198, 18, 0, 2]);
    let sum: u32 = ip
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum();
    let sum = (sum & 0xffff) + (sum >> 16);
    let checksum = !((sum & 0xffff) + (sum >> 16)) as u16;
    ip[10..12].copy_from_slice(&checksum.to_be_bytes());
    let udp = &mut f[34..42];
    udp[0..2].copy_from_slice(&9u16.to_be_bytes());
    udp[2..4].copy_from_slice(&9u16.to_be_bytes());
    udp[4..6].copy_from_slice(&(ip_len - 20).to_be_bytes());
    for (i, b) in f[HEADERS..].iter_mut().enumerate() {
        *b = i as u8;
    }
    f
}

/// Where the TX loop takes its mbufs and what it writes into each: the per-packet work of one
/// mode, shared by the measurement and `--verify`.
enum Source<'e> {
    /// An ordinary pool; `written` bytes of the frame are copied into every mbuf.
    Copy {
        pool: Mempool<'e>,
        frame: Vec<u8>,
        written: usize,
    },
    /// A template pool holding the frame.
    Prefilled(TemplatePool<'e>),
}

impl<'e> Source<'e> {
    fn new(eal: &'e Eal, write: Write, frame: &[u8]) -> Result<Self, Error> {
        Ok(match write {
            Write::Frame | Write::Headers => Source::Copy {
                pool: Mempool::new(eal, "tx_null", MBUFS, CACHE, DEFAULT_DATA_ROOM, Socket::Any)?,
                frame: frame.to_vec(),
                written: if write == Write::Headers {
                    HEADERS
                } else {
                    frame.len()
                },
            },
            Write::Prefilled => Source::Prefilled(TemplatePool::new(
                eal,
                "tx_null",
                MBUFS,
                CACHE,
                frame,
                SEQ_AT..SEQ_AT + PREFILLED_SEQ,
                Socket::Any,
            )?),
        })
    }

    /// The pool that ports get as their receive pool (net_null and the ring pair receive
    /// nothing into it).
    fn rx_pool(&self, eal: &'e Eal) -> Result<Mempool<'e>, Error> {
        match self {
            Source::Copy { pool, .. } => Ok(*pool),
            Source::Prefilled(_) => {
                Mempool::new(eal, "rx", 1023, 0, DEFAULT_DATA_ROOM, Socket::Any)
            }
        }
    }

    /// Takes `n` numbered packets into `burst` (one bulk allocation), with the per-packet code
    /// of the measurement.
    fn alloc(
        &self,
        burst: &mut MbufBurst<'e, BURST>,
        n: usize,
        seq: &mut u64,
    ) -> Result<(), Error> {
        match self {
            Source::Copy {
                pool,
                frame,
                written,
            } => burst.alloc_with(pool, n, |m| write_copy(m, frame, *written, seq)),
            Source::Prefilled(pool) => pool.alloc(burst, n, |p| write_seq(p, seq)),
        }
    }

    /// The sequence number written into `frame`.
    fn seq_of(&self, frame: &[u8]) -> u64 {
        match self {
            Source::Copy { .. } => u64::from(u32::from_be_bytes(
                frame[SEQ_AT..SEQ_AT + 4].try_into().expect("4 bytes"),
            )),
            Source::Prefilled(_) => {
                u64::from_be_bytes(frame[SEQ_AT..SEQ_AT + 8].try_into().expect("8 bytes"))
            }
        }
    }

    /// The frame that packet `seq` must be.
    fn expected(&self, frame: &[u8], seq: u64) -> Vec<u8> {
        let mut f = frame.to_vec();
        match self {
            Source::Copy { .. } => {
                f[SEQ_AT..SEQ_AT + 4].copy_from_slice(&(seq as u32).to_be_bytes())
            }
            Source::Prefilled(_) => f[SEQ_AT..SEQ_AT + 8].copy_from_slice(&seq.to_be_bytes()),
        }
        f
    }
}

/// Per packet, from an ordinary pool: the frame's length, `written` bytes of it, the sequence
/// number.
#[inline(always)]
fn write_copy(m: &mut Mbuf<'_>, frame: &[u8], written: usize, seq: &mut u64) {
    let data = m.append(frame.len()).expect("a frame fits in an mbuf");
    data[..written].copy_from_slice(&frame[..written]);
    data[SEQ_AT..SEQ_AT + 4].copy_from_slice(&(*seq as u32).to_be_bytes());
    *seq += 1;
}

/// Per packet, from a template pool: the sequence number into the 8-byte patch region.
#[inline(always)]
fn write_seq(patch: &mut [u8], seq: &mut u64) {
    patch.copy_from_slice(&seq.to_be_bytes());
    *seq += 1;
}

/// The TX loop: fill a burst, send it, until stopped. Returns the packets made.
#[inline(always)]
fn tx_loop<'p>(
    stop: &StopFlag,
    txq: &mut TxQueue<'p>,
    mut fill: impl FnMut(&mut MbufBurst<'p, BURST>, &mut u64) -> Result<(), Error>,
) -> u64 {
    let mut burst = MbufBurst::<BURST>::new();
    let mut seq = 0u64;
    while !stop.is_stopped() {
        if fill(&mut burst, &mut seq).is_ok() {
            txq.tx_burst(&mut burst);
        }
    }
    seq
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tx_null: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match args.verify {
        Some(rounds) => verify(&args, rounds),
        None => run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tx_null: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let eal = Eal::init(&args.eal)?;
    let worker = *eal
        .worker_lcores()
        .first()
        .ok_or("needs a worker lcore (-l 0,1)")?;
    let frame = template(args.frame_size);
    let source = Source::new(&eal, args.write, &frame)?;
    let rx_pool = source.rx_pool(&eal)?;
    let mut port = Port::from_name(&eal, &args.port)?;
    let started = port.start(&PortConfig::default(), &rx_pool)?;
    let mut queues = started.queues()?;
    let mut txq = queues.tx.pop().ok_or("no tx queue")?;
    let stop = StopFlag::new();
    let hz = eal.tsc_hz() as f64;

    let (packets, seconds) = eal.scope(|s| -> Result<(u64, f64), Box<dyn std::error::Error>> {
        // One loop per mode, the mode's constants in locals: the per-packet code inlines whole.
        let tx = s.launch(worker, || match &source {
            Source::Copy {
                pool,
                frame,
                written,
            } => {
                let (frame, written) = (&frame[..], *written);
                tx_loop(&stop, &mut txq, |burst, seq| {
                    burst.fill_with(pool, |m| write_copy(m, frame, written, seq))
                })
            }
            Source::Prefilled(pool) => tx_loop(&stop, &mut txq, |burst, seq| {
                pool.fill(burst, |p| write_seq(p, seq))
            }),
        })?;
        std::thread::sleep(Duration::from_secs_f64(args.warmup));
        let (p0, t0) = (started.stats()?.opackets, tsc());
        std::thread::sleep(Duration::from_secs_f64(args.seconds));
        let (p1, t1) = (started.stats()?.opackets, tsc());
        stop.stop();
        tx.join().map_err(|_| "the TX worker panicked")?;
        Ok((p1 - p0, (t1 - t0) as f64 / hz))
    })?;
    println!(
        "tx_null frame={} write={} seconds={seconds:.3} packets={packets} mpps={:.2}",
        args.frame_size,
        args.write.name(),
        packets as f64 / seconds / 1e6
    );
    Ok(())
}

/// Sends `rounds` times every mbuf of the pool through a ring pair, with the measurement's
/// per-packet code, and checks every received frame.
fn verify(args: &Args, rounds: u32) -> Result<(), Box<dyn std::error::Error>> {
    let eal = Eal::init(&args.eal)?;
    let frame = template(args.frame_size);
    let source = Source::new(&eal, args.write, &frame)?;
    let rx_pool = source.rx_pool(&eal)?;
    let [a, b] = eal.create_ring_pair(["verify_tx", "verify_rx"], 1)?;
    let (mut a, mut b) = (Port::by_id(&eal, a)?, Port::by_id(&eal, b)?);
    let a = a.start(&PortConfig::default(), &rx_pool)?;
    let b = b.start(&PortConfig::default(), &rx_pool)?;
    let (mut qa, mut qb) = (a.queues()?, b.queues()?);
    let (txq, rxq) = (&mut qa.tx[0], &mut qb.rx[0]);

    let mut seq = 0u64;
    let (mut complete, mut incomplete) = (0u64, 0u64);
    let mut burst = MbufBurst::<BURST>::new();
    let mut received = MbufBurst::<BURST>::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    for _ in 0..rounds {
        // Received mbufs are held until the pool runs dry: each round sends every mbuf once.
        let first = seq;
        let mut held = Vec::with_capacity(MBUFS as usize);
        loop {
            // Whole bursts, then one at a time when fewer are left.
            let dry = source.alloc(&mut burst, BURST, &mut seq).is_err()
                && source.alloc(&mut burst, 1, &mut seq).is_err();
            while !burst.is_empty() {
                txq.tx_burst(&mut burst);
                receive_into(rxq, &mut received, &mut held);
                if Instant::now() > deadline {
                    return Err("the ring pair did not take the packets within 60 s".into());
                }
            }
            if dry {
                break;
            }
        }
        while (held.len() as u64) < seq - first {
            if receive_into(rxq, &mut received, &mut held) == 0 && Instant::now() > deadline {
                return Err("the packets did not arrive within 60 s".into());
            }
        }
        // Each frame must be the template with its own sequence number, and each number of the
        // round must come exactly once.
        let mut seen = vec![false; (seq - first) as usize];
        for m in &held {
            let s = source.seq_of(m.data());
            let fresh = s
                .checked_sub(first)
                .and_then(|i| seen.get_mut(i as usize))
                .is_some_and(|seen| !std::mem::replace(seen, true));
            if fresh && m.data() == source.expected(&frame, s) {
                complete += 1;
            } else {
                incomplete += 1;
            }
        }
    }
    println!(
        "tx_null verify frame={} write={} packets={seq} complete={complete} incomplete={incomplete}",
        args.frame_size,
        args.write.name(),
    );
    if complete != seq && args.write != Write::Headers {
        return Err(format!(
            "{} of {seq} frames were not the template with their sequence number",
            seq - complete
        )
        .into());
    }
    Ok(())
}

/// Receives one burst into `held`; returns how many arrived.
fn receive_into<'p>(
    rxq: &mut RxQueue<'p>,
    burst: &mut MbufBurst<'p, BURST>,
    held: &mut Vec<Mbuf<'p>>,
) -> usize {
    let n = rxq.rx_burst(burst);
    held.extend(std::iter::from_fn(|| burst.pop()));
    n
}
