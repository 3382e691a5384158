//! `diskbench volumes [PROVIDER] [--type T] [--size S]`: the built-in
//! catalogue of cloud volume types (sources and dates included), or what
//! one volume should deliver: its baseline, burst and bucket, and its list
//! price. The same figures `--volume` holds runs against.

use crate::outcome::Exit;
use clap::Args;

#[derive(Args)]
pub struct VolumesArgs {
    /// aws, azure, gcp or digitalocean (default: all; with --type, the one provider that has it)
    provider: Option<String>,
    /// One volume type (gp2, premium-ssd, pd-ssd, ...) or Azure tier (P10)
    #[arg(long = "type", value_name = "TYPE")]
    volume_type: Option<String>,
    /// Its size, e.g. 100GiB, 200GB, 2TiB (default: its smallest size, at least 100 GiB)
    #[arg(long, value_name = "SIZE")]
    size: Option<String>,
}

pub fn run(args: VolumesArgs) -> anyhow::Result<Exit> {
    let catalogue = volumes::Catalogue::builtin();
    match volumes::listing::list_text(
        catalogue,
        args.provider.as_deref(),
        args.volume_type.as_deref(),
        args.size.as_deref(),
    ) {
        Ok(text) => {
            print!("{text}");
            Ok(Exit::Ok)
        }
        Err(e) => {
            eprintln!(
                "diskbench volumes: {}",
                e.to_string().trim_start_matches("--volume: ")
            );
            Ok(Exit::Usage)
        }
    }
}
