// Writes tests/data/post_challenges.json: fallback PoSt challenged leaves computed with node's own SHA-256,
// independently of cuzk (storage-proofs-post vanilla.rs generate_leaf_challenge, utils.rs get_challenge_index):
//   leaf = LE_u64(SHA256(randomness || sector_id u64 LE || challenge_index u64 LE)[0..8]) mod leaves
//   challenge_index = n (API 1.2.0) or sector_index * challenge_count + n (1.0.0, 1.1.0)
// Deterministic: every randomness is a SHA-256 of a fixed label with byte 31 masked by 0x3f, as Curio does.
//
//   cd tests/oracle && node gen_post_challenges.mjs

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

const sha256 = (buf) => createHash('sha256').update(buf).digest();

function randomness(label) {
  const r = sha256(Buffer.from(`cuzk post randomness ${label}`));
  r[31] &= 0x3f;
  return r;
}

function u64le(v) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
}

function leaf(rand, sectorId, challengeIndex, leaves) {
  const digest = sha256(Buffer.concat([rand, u64le(sectorId), u64le(challengeIndex)]));
  return { digest, leaf: digest.readBigUInt64LE(0) % BigInt(leaves) };
}

const KiB = 1024n, MiB = KiB * KiB, GiB = MiB * KiB;
const leavesOf = { '2KiB': 2n * KiB / 32n, '8MiB': 8n * MiB / 32n, '512MiB': 512n * MiB / 32n,
  '32GiB': 32n * GiB / 32n, '64GiB': 64n * GiB / 32n };

const leafCases = [];
const sectorIds = [0n, 1n, 7n, 1000n, 123456789n, (1n << 63n) + 5n, (1n << 64n) - 1n];
const indices = [0n, 1n, 9n, 65n, 23489n, (1n << 40n) + 3n];
let k = 0;
for (const sid of sectorIds) {
  for (const idx of indices) {
    const size = Object.keys(leavesOf)[k % 5];
    const rand = randomness(k++);
    const { digest, leaf: l } = leaf(rand, sid, idx, leavesOf[size]);
    leafCases.push({ randomness: rand.toString('hex'), sector_id: sid.toString(), challenge_index: idx.toString(),
      leaves: leavesOf[size].toString(), sha256: digest.toString('hex'), leaf: l.toString() });
  }
}

// Whole sectors: WindowPoSt (10 challenges) under both rules, WinningPoSt (66) at sector index 0.
const sectorCases = [];
for (const [version, count, sectorIndex, size] of [
  ['1.2.0', 10n, 0n, '32GiB'], ['1.2.0', 10n, 5n, '32GiB'], ['1.0.0', 10n, 0n, '32GiB'],
  ['1.0.0', 10n, 5n, '2KiB'], ['1.1.0', 10n, 2348n, '64GiB'], ['1.0.0', 66n, 0n, '32GiB'], ['1.2.0', 66n, 0n, '2KiB'],
]) {
  const rand = randomness(`sector ${version} ${count} ${sectorIndex}`);
  const sid = 1000n + sectorIndex;
  const out = [];
  for (let n = 0n; n < count; ++n) {
    const idx = version === '1.2.0' ? n : sectorIndex * count + n;
    out.push(leaf(rand, sid, idx, leavesOf[size]).leaf.toString());
  }
  sectorCases.push({ api_version: version, randomness: rand.toString('hex'), sector_id: sid.toString(),
    sector_index: sectorIndex.toString(), challenge_count: count.toString(), leaves: leavesOf[size].toString(),
    challenged_leaves: out });
}

const doc = { generator: 'tests/oracle/gen_post_challenges.mjs (node:crypto SHA-256)', leaf: leafCases,
  sector: sectorCases };
writeFileSync(join(here, '../data/post_challenges.json'), JSON.stringify(doc, null, 1) + '\n');
