//! The checksums of fio's `verify=` methods, over a chunk's data (the bytes
//! after its header). Digests are stored in the header as they come, in
//! little-endian for the CRCs; only diskbench reads them back, so the byte
//! order is ours to choose.

use crc::{Crc, CRC_16_IBM_SDLC, CRC_32_ISO_HDLC, CRC_64_ECMA_182, CRC_7_MMC};
use md5::Md5;
use model::VerifyAlgo;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

/// The longest digest (sha512).
pub const MAX_DIGEST: usize = 64;

const CRC7: Crc<u8> = Crc::<u8>::new(&CRC_7_MMC);
const CRC16: Crc<u16> = Crc::<u16>::new(&CRC_16_IBM_SDLC);
const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);
const CRC64: Crc<u64> = Crc::<u64>::new(&CRC_64_ECMA_182);

/// Bytes of `algo`'s digest (0: no data checksum).
pub fn digest_len(algo: VerifyAlgo) -> usize {
    match algo {
        VerifyAlgo::Crc7 => 1,
        VerifyAlgo::Crc16 => 2,
        VerifyAlgo::Crc32c | VerifyAlgo::Crc32 | VerifyAlgo::Xxhash => 4,
        VerifyAlgo::Crc64 => 8,
        VerifyAlgo::Md5 => 16,
        VerifyAlgo::Sha1 => 20,
        VerifyAlgo::Sha256 => 32,
        VerifyAlgo::Sha512 => 64,
        VerifyAlgo::Meta | VerifyAlgo::Pattern | VerifyAlgo::PatternHdr | VerifyAlgo::Null => 0,
    }
}

/// Writes `algo`'s digest of `data` into `out` (exactly `digest_len` bytes).
pub fn digest(algo: VerifyAlgo, data: &[u8], out: &mut [u8]) {
    let out = &mut out[..digest_len(algo)];
    match algo {
        VerifyAlgo::Crc7 => out.copy_from_slice(&[CRC7.checksum(data)]),
        VerifyAlgo::Crc16 => out.copy_from_slice(&CRC16.checksum(data).to_le_bytes()),
        VerifyAlgo::Crc32c => out.copy_from_slice(&crc32c::crc32c(data).to_le_bytes()),
        VerifyAlgo::Crc32 => out.copy_from_slice(&CRC32.checksum(data).to_le_bytes()),
        VerifyAlgo::Xxhash => {
            out.copy_from_slice(&xxhash_rust::xxh32::xxh32(data, 0).to_le_bytes())
        }
        VerifyAlgo::Crc64 => out.copy_from_slice(&CRC64.checksum(data).to_le_bytes()),
        VerifyAlgo::Md5 => out.copy_from_slice(&Md5::digest(data)),
        VerifyAlgo::Sha1 => out.copy_from_slice(&Sha1::digest(data)),
        VerifyAlgo::Sha256 => out.copy_from_slice(&Sha256::digest(data)),
        VerifyAlgo::Sha512 => out.copy_from_slice(&Sha512::digest(data)),
        VerifyAlgo::Meta | VerifyAlgo::Pattern | VerifyAlgo::PatternHdr | VerifyAlgo::Null => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(algo: VerifyAlgo, data: &[u8]) -> String {
        let mut out = [0u8; MAX_DIGEST];
        digest(algo, data, &mut out);
        out[..digest_len(algo)]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Known answers for "123456789", the usual check string.
    #[test]
    fn known_answers() {
        let d = b"123456789";
        assert_eq!(hex(VerifyAlgo::Crc32c, d), "839206e3"); // 0xe3069283, LE
        assert_eq!(hex(VerifyAlgo::Crc32, d), "2639f4cb"); // 0xcbf43926
        assert_eq!(hex(VerifyAlgo::Crc16, d), "6e90"); // X.25: 0x906e
        assert_eq!(hex(VerifyAlgo::Crc7, d), "75");
        assert_eq!(hex(VerifyAlgo::Md5, d), "25f9e794323b453885f5181f1b624d0b");
        assert_eq!(
            hex(VerifyAlgo::Sha256, d),
            "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225"
        );
        assert_eq!(
            hex(VerifyAlgo::Sha1, d),
            "f7c3bc1d808e04732adf679965ccc34ca7ae3441"
        );
    }

    #[test]
    fn every_algorithm_sees_one_flipped_bit() {
        let mut data = vec![0x5au8; 4096];
        for algo in [
            VerifyAlgo::Crc7,
            VerifyAlgo::Crc16,
            VerifyAlgo::Crc32c,
            VerifyAlgo::Crc32,
            VerifyAlgo::Xxhash,
            VerifyAlgo::Crc64,
            VerifyAlgo::Md5,
            VerifyAlgo::Sha1,
            VerifyAlgo::Sha256,
            VerifyAlgo::Sha512,
        ] {
            let before = hex(algo, &data);
            data[1234] ^= 1;
            assert_ne!(before, hex(algo, &data), "{algo:?}");
            data[1234] ^= 1;
        }
    }
}
