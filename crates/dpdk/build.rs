//! Finds the system DPDK with pkg-config, generates the bindings with bindgen and compiles the C shim
//! that reaches DPDK's `static inline` functions and macros.
//!
//! Shared linking is the default: EAL then loads the PMD plugins by itself. The `static` feature links
//! the DPDK archives (all PMDs, whole-archive) into the binary instead.

use std::env;
use std::path::PathBuf;
use std::process::Command;

const MIN_VERSION: &str = "22.11";

const MISSING_DPDK: &str = "\
upfbench-dpdk: DPDK (libdpdk >= 22.11) was not found by pkg-config.
  Debian 12 / Ubuntu: apt-get install -y dpdk dpdk-dev libdpdk-dev libclang-dev pkg-config
  (or run deploy/setup.sh as root). A DPDK built from source: set PKG_CONFIG_PATH to the
  directory that holds libdpdk.pc.";

/// The DPDK functions the safe API calls. Keep this list narrow: bindgen's run time follows it.
const FUNCTIONS: &[&str] = &[
    "rte_eal_init",
    "rte_eal_cleanup",
    "rte_eal_remote_launch",
    "rte_eal_wait_lcore",
    "rte_eal_get_lcore_state",
    "rte_get_main_lcore",
    "rte_get_next_lcore",
    "rte_lcore_is_enabled",
    "rte_lcore_count",
    "rte_lcore_to_socket_id",
    "rte_socket_id",
    "rte_get_tsc_hz",
    "rte_strerror",
    "rte_version",
    "rte_pktmbuf_pool_create",
    "rte_mempool_obj_iter",
    "rte_mbuf_dynflag_register_bitnum",
    "rte_mempool_avail_count",
    "rte_mempool_in_use_count",
    "rte_pktmbuf_free_bulk",
    "rte_eth_find_next",
    "rte_eth_dev_count_avail",
    "rte_eth_dev_is_valid_port",
    "rte_eth_dev_get_port_by_name",
    "rte_eth_dev_get_name_by_port",
    "rte_eth_dev_socket_id",
    "rte_eth_dev_info_get",
    "rte_eth_macaddr_get",
    "rte_eth_link_get_nowait",
    "rte_eth_dev_adjust_nb_rx_tx_desc",
    "rte_eth_dev_configure",
    "rte_eth_rx_queue_setup",
    "rte_eth_tx_queue_setup",
    "rte_eth_dev_start",
    "rte_eth_dev_stop",
    "rte_eth_promiscuous_enable",
    "rte_eth_promiscuous_disable",
    "rte_eth_promiscuous_get",
    "rte_eth_stats_get",
    "rte_eth_stats_reset",
    "rte_eth_xstats_get_names",
    "rte_eth_xstats_get",
    "rte_eth_xstats_get_id_by_name",
    "rte_eth_xstats_get_by_id",
    "rte_ring_create",
    "rte_eth_from_rings",
    "upfb_.*",
];

/// Types that bindgen must lay out exactly (their fields are read or written from Rust).
const TYPES: &[&str] = &[
    "rte_mbuf",
    "rte_mbuf_dynflag",
    "rte_eth_conf",
    "rte_eth_dev_info",
    "rte_eth_link",
    "rte_eth_stats",
    "rte_eth_xstat",
    "rte_eth_xstat_name",
    "rte_ether_addr",
    "rte_eth_rxconf",
    "rte_eth_txconf",
    "rte_lcore_state_t",
];

/// Types reached through the allowlist that are only ever behind pointers. Opaque keeps bindgen from
/// generating (and laying out) them and what they contain.
const OPAQUE: &[&str] = &[
    "rte_ring",
    "rte_mempool",
    "rte_device",
    "rte_eth_dev_portconf",
    "rte_mbuf_ext_shared_info",
    "rte_eth_switch_info",
    "rte_eth_rxseg_capa",
    "rte_eth_rxseg_split",
    "rte_eth_thresh",
    "rte_flow",
];

fn main() {
    println!("cargo:rerun-if-changed=csrc/shim.h");
    println!("cargo:rerun-if-changed=csrc/shim.c");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_LIBDIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");

    let statik = env::var_os("CARGO_FEATURE_STATIC").is_some();

    if let Err(e) = pkg_config::Config::new()
        .atleast_version(MIN_VERSION)
        .cargo_metadata(false)
        .env_metadata(false)
        .probe("libdpdk")
    {
        panic!("\n{MISSING_DPDK}\npkg-config said: {e}\n");
    }
    let version = pkg_config_output(&["--modversion"]);
    println!("cargo:rustc-env=UPFBENCH_DPDK_VERSION={}", version.trim());

    // The whole --cflags output: it carries `-include rte_config.h` and `-march=...`, which the
    // headers and the inline functions depend on.
    let cflags: Vec<String> = pkg_config_output(&["--cflags"])
        .split_whitespace()
        .map(str::to_owned)
        .collect();

    compile_shim(&cflags);
    emit_link_flags(statik);
    generate_bindings(&cflags);
}

fn pkg_config_output(args: &[&str]) -> String {
    let program = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_owned());
    let output = Command::new(&program)
        .args(args)
        .arg("libdpdk")
        .output()
        .unwrap_or_else(|e| panic!("\nupfbench-dpdk: cannot run {program}: {e}\n{MISSING_DPDK}\n"));
    if !output.status.success() {
        panic!(
            "\nupfbench-dpdk: `{program} {} libdpdk` failed: {}\n{MISSING_DPDK}\n",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    String::from_utf8(output.stdout).expect("pkg-config prints UTF-8")
}

fn compile_shim(cflags: &[String]) {
    let mut build = cc::Build::new();
    build
        .file("csrc/shim.c")
        .include("csrc")
        .opt_level(3)
        .warnings(true);
    for flag in cflags {
        build.flag(flag);
    }
    build.compile("upfbench_dpdk_shim");
}

/// Shared: one `-l` per DPDK library (rustc links with --as-needed, so only those used stay).
/// Static: the archives, whole-archive as pkg-config says (the PMDs register themselves from
/// constructors that nothing references), not bundled into the rlib, then the system libraries.
fn emit_link_flags(statik: bool) {
    let args: &[&str] = if statik {
        &["--static", "--libs"]
    } else {
        &["--libs"]
    };
    let libs = pkg_config_output(args);
    let mut whole_archive = false;
    // The network PMDs linked into a static binary: fixed here, at build time, and what
    // `upfbench doctor` reports (it cannot look for plugins in a directory then).
    let mut static_pmds: Vec<&str> = Vec::new();
    for token in libs.split_whitespace() {
        match token {
            "-Wl,--whole-archive" => whole_archive = true,
            "-Wl,--no-whole-archive" => whole_archive = false,
            "-pthread" => println!("cargo:rustc-link-lib=dylib=pthread"),
            _ => {
                if let Some(dir) = token.strip_prefix("-L") {
                    println!("cargo:rustc-link-search=native={dir}");
                } else if let Some(archive) = token.strip_prefix("-l:") {
                    if whole_archive
                        && let Some(pmd) = archive
                            .strip_prefix("librte_")
                            .and_then(|a| a.strip_suffix(".a"))
                            .filter(|a| a.starts_with("net_"))
                    {
                        static_pmds.push(pmd);
                    }
                    let modifiers = if whole_archive {
                        "-bundle,+whole-archive,+verbatim"
                    } else {
                        "-bundle,+verbatim"
                    };
                    println!("cargo:rustc-link-lib=static:{modifiers}={archive}");
                } else if let Some(lib) = token.strip_prefix("-l") {
                    // In the static listing the shared DPDK libraries follow the archives that
                    // already define their symbols: skip them.
                    if !(statik && lib.starts_with("rte_")) {
                        println!("cargo:rustc-link-lib=dylib={lib}");
                    }
                }
                // Other linker flags (--as-needed, --export-dynamic) are rustc's defaults or
                // not needed by a Rust binary.
            }
        }
    }
    println!(
        "cargo:rustc-env=UPFBENCH_DPDK_STATIC_PMDS={}",
        static_pmds.join(",")
    );
    if !statik {
        // rte_eth_from_rings (ring pairs) lives in the net_ring PMD, which pkg-config does not list
        // for shared linking. It is the same file as EAL's plugin, so the loader maps it once.
        println!("cargo:rustc-link-lib=dylib=rte_net_ring");
    }
}

/// DPDK's flag macros (`RTE_BIT64(n)`, `1ULL << n`) are 64-bit; bindgen would pick the smallest type
/// that holds each value.
#[derive(Debug)]
struct FlagsAreU64;

impl bindgen::callbacks::ParseCallbacks for FlagsAreU64 {
    fn int_macro(&self, name: &str, _value: i64) -> Option<bindgen::callbacks::IntKind> {
        const PREFIXES: &[&str] = &[
            "RTE_ETH_RX_OFFLOAD_",
            "RTE_ETH_TX_OFFLOAD_",
            "RTE_ETH_RSS_",
            "RTE_MBUF_F_",
        ];
        PREFIXES
            .iter()
            .any(|p| name.starts_with(p))
            .then_some(bindgen::callbacks::IntKind::U64)
    }
}

fn generate_bindings(cflags: &[String]) {
    let mut builder = bindgen::Builder::default()
        .header("csrc/shim.h")
        .clang_args(cflags)
        .clang_arg("-Icsrc")
        .allowlist_recursively(true)
        .default_enum_style(bindgen::EnumVariation::Rust {
            non_exhaustive: false,
        })
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_debug(false)
        .layout_tests(true)
        .generate_comments(false)
        .use_core()
        .merge_extern_blocks(true)
        .sort_semantically(true)
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .parse_callbacks(Box::new(FlagsAreU64));
    for f in FUNCTIONS {
        builder = builder.allowlist_function(f);
    }
    for t in TYPES {
        builder = builder.allowlist_type(t);
    }
    for t in OPAQUE {
        builder = builder.opaque_type(t);
    }
    builder = builder
        .allowlist_var("RTE_ETH_LINK_.*")
        .allowlist_var("RTE_ETH_SPEED_NUM_.*")
        .allowlist_var("RTE_ETH_NAME_MAX_LEN")
        .allowlist_var("RTE_ETH_XSTATS_NAME_SIZE")
        .allowlist_var("RTE_MAX_ETHPORTS")
        .allowlist_var("RTE_MAX_LCORE")
        .allowlist_var("RTE_MBUF_DEFAULT_BUF_SIZE")
        .allowlist_var("RTE_PKTMBUF_HEADROOM")
        .allowlist_var("RTE_MBUF_PORT_INVALID")
        .allowlist_var("SOCKET_ID_ANY")
        .allowlist_var("RING_F_SP_ENQ")
        .allowlist_var("RING_F_SC_DEQ")
        .allowlist_var("RTE_MBUF_F_.*")
        .allowlist_var("RTE_ETH_RX_OFFLOAD_.*")
        .allowlist_var("RTE_ETH_TX_OFFLOAD_.*")
        .allowlist_var("RTE_ETH_RSS_(IP|UDP|TCP)")
        .clang_macro_fallback()
        // Its scratch files (a precompiled header, a C file) go to OUT_DIR, not the crate's
        // source directory, where an interrupted build would leave them.
        .clang_macro_fallback_build_dir(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .allowlist_type("rte_eth_rx_mq_mode")
        .allowlist_type("rte_eth_tx_mq_mode");

    let bindings = builder.generate().unwrap_or_else(|e| {
        panic!("\nupfbench-dpdk: bindgen failed on the DPDK headers: {e}\n{MISSING_DPDK}\n")
    });
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    bindings
        .write_to_file(out.join("bindings.rs"))
        .expect("write bindings.rs");
}
