// Writes tests/data/vectors.json: BLS12-381 field, curve and zcash-encoding vectors computed by
// @noble/curves, an implementation independent of cuzk. Deterministic: every "random" value is a
// SHA-256 of a fixed label, so rerunning the script reproduces the file byte for byte.
//
//   cd tests/oracle && npm ci && node gen_vectors.mjs
//
// Hex strings are big-endian without a 0x prefix; field elements are padded to their byte length
// (Fp 48 bytes, Fr 32 bytes). Fp2 elements are objects {c0, c1} for c0 + c1*u. Point encodings are
// the zcash format: byte 0 carries the flags 0x80 compressed, 0x40 infinity, 0x20 sort (y is the
// lexicographically larger root); G2 coordinates are written c1 then c0.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const here = dirname(fileURLToPath(import.meta.url));
const nobleVersion = JSON.parse(
  readFileSync(join(here, 'node_modules/@noble/curves/package.json'), 'utf8')
).version;

const { Fp, Fp2, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const p = Fp.ORDER;
const r = Fr.ORDER;

// ---- deterministic inputs ------------------------------------------------------------------

function sha256(label) {
  return createHash('sha256').update(label).digest();
}
// A 512-bit integer from a label: wide enough that reducing it modulo p or r is near uniform.
function wideInt(label) {
  const bytes = Buffer.concat([sha256(label + '/0'), sha256(label + '/1')]);
  return BigInt('0x' + bytes.toString('hex'));
}
const randFp = (label) => wideInt('fp/' + label) % p;
const randFr = (label) => wideInt('fr/' + label) % r;
// A full 255-bit integer, not reduced modulo r (r < 2^255): exercises scalars >= r.
const rand255 = (label) => BigInt('0x' + sha256('k255/' + label).toString('hex')) >> 1n;

// ---- encoding helpers ----------------------------------------------------------------------

const hexN = (v, bytes) => {
  if (v < 0n) throw new Error('negative');
  const s = v.toString(16).padStart(2 * bytes, '0');
  if (s.length !== 2 * bytes) throw new Error('value too wide: ' + v.toString(16));
  return s;
};
const fpHex = (v) => hexN(v, 48);
const frHex = (v) => hexN(v, 32);
const fp2Hex = (v) => ({ c0: fpHex(v.c0), c1: fpHex(v.c1) });
const bytesHex = (b) => Buffer.from(b).toString('hex');
const fromHex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));

// Sets flag bits on byte 0 of a hex encoding.
function withFlags(hex, flags) {
  const b = fromHex(hex);
  b[0] |= flags;
  return bytesHex(b);
}
function clearFlags(hex, flags) {
  const b = fromHex(hex);
  b[0] &= ~flags & 0xff;
  return bytesHex(b);
}

// Hand-made zcash encodings, used only for points noble refuses to serialize (outside the
// subgroup): toBytes() asserts validity first.
const fpLargest = (y) => y > (p - 1n) / 2n;
const fp2Largest = (y) => (y.c1 !== 0n ? fpLargest(y.c1) : fpLargest(y.c0));
function g1RawCompressed(x, y) {
  return withFlags(fpHex(x), 0x80 | (fpLargest(y) ? 0x20 : 0));
}
function g1RawUncompressed(x, y) {
  return fpHex(x) + fpHex(y);
}
function g2RawCompressed(x, y) {
  return withFlags(fpHex(x.c1) + fpHex(x.c0), 0x80 | (fp2Largest(y) ? 0x20 : 0));
}
function g2RawUncompressed(x, y) {
  return fpHex(x.c1) + fpHex(x.c0) + fpHex(y.c1) + fpHex(y.c0);
}

// ---- fields --------------------------------------------------------------------------------

function primeFieldCases(F, hex, rand, tag) {
  const m = F.ORDER;
  const half = (m - 1n) / 2n;
  const edges = [
    [0n, 0n],
    [0n, 1n],
    [1n, 0n],
    [1n, 1n],
    [1n, m - 1n],
    [m - 1n, 1n],
    [m - 1n, m - 1n],
    [2n, half],
    [half, half + 1n],
    [half + 1n, m - 2n],
    [(1n << 64n) - 1n, 1n << 64n],
  ];
  const pairs = edges.slice();
  for (let i = 0; pairs.length < 18; ++i) pairs.push([rand(tag + '/a/' + i), rand(tag + '/b/' + i)]);
  return pairs.map(([a, b]) => ({
    a: hex(a),
    b: hex(b),
    add: hex(F.add(a, b)),
    sub: hex(F.sub(a, b)),
    mul: hex(F.mul(a, b)),
    sqr: hex(F.sqr(a)),
    // The inverse of zero does not exist; null tells the reader to skip it.
    inv: a === 0n ? null : hex(F.inv(a)),
  }));
}

function fp2Cases() {
  const mk = (c0, c1) => Fp2.fromBigTuple([c0, c1]);
  const pairs = [
    [mk(0n, 1n), mk(0n, 1n)], // u * u = -1
    [mk(1n, 1n), mk(1n, p - 1n)],
    [mk(p - 1n, p - 1n), mk(p - 1n, p - 1n)],
    [mk(5n, 0n), mk(0n, 7n)],
  ];
  for (let i = 0; i < 6; ++i) {
    pairs.push([
      mk(randFp('fp2/a0/' + i), randFp('fp2/a1/' + i)),
      mk(randFp('fp2/b0/' + i), randFp('fp2/b1/' + i)),
    ]);
  }
  return pairs.map(([a, b]) => ({
    a: fp2Hex(a),
    b: fp2Hex(b),
    mul: fp2Hex(Fp2.mul(a, b)),
    sqr: fp2Hex(Fp2.sqr(a)),
    inv: fp2Hex(Fp2.inv(a)),
  }));
}

// ---- curves --------------------------------------------------------------------------------

// [k]G for any k >= 0 (noble wants scalars below r; [k]G = [k mod r]G).
const mulBase = (Point, k) => Point.BASE.multiplyUnsafe(k % r);

function encodings(P) {
  return { compressed: bytesHex(P.toBytes(true)), uncompressed: bytesHex(P.toBytes(false)) };
}

function scalarList(tag) {
  const ks = [0n, 1n, 2n, 3n, 7n, r - 2n, r - 1n, r, r + 1n, (r - 1n) / 2n, 0xd201000000010000n];
  for (let i = 0; i < 4; ++i) ks.push(randFr(tag + '/k/' + i));
  for (let i = 0; i < 3; ++i) ks.push(rand255(tag + '/k255/' + i));
  return ks;
}

function curveCases(Point, tag) {
  const mul = scalarList(tag).map((k) => ({ k: hexN(k, 32), ...encodings(mulBase(Point, k)) }));
  const add = [];
  const addPair = (a, b) => {
    const P = mulBase(Point, a);
    const Q = mulBase(Point, b);
    add.push({
      p: bytesHex(P.toBytes(false)),
      q: bytesHex(Q.toBytes(false)),
      ...encodings(P.add(Q)),
    });
  };
  addPair(1n, 2n);
  addPair(5n, 5n); // P + P goes through the doubling branch
  addPair(5n, r - 5n); // P + (-P) = identity
  addPair(0n, 9n); // identity + Q
  for (let i = 0; i < 4; ++i) addPair(randFr(tag + '/add/a/' + i), randFr(tag + '/add/b/' + i));
  const dbl = [];
  for (const k of [1n, 2n, randFr(tag + '/dbl/0'), randFr(tag + '/dbl/1'), 0n]) {
    const P = mulBase(Point, k);
    dbl.push({ p: bytesHex(P.toBytes(false)), ...encodings(P.double()) });
  }
  return { mul, add, dbl };
}

const fpIsSquare = (v) => v === 0n || Fp.pow(v, (p - 1n) / 2n) === 1n;
// An Fp2 element is a square exactly when its norm c0^2 + c1^2 is a square in Fp.
const fp2IsSquare = (v) => fpIsSquare(Fp.add(Fp.sqr(v.c0), Fp.sqr(v.c1)));

function rejects(fn) {
  try {
    fn();
    return false;
  } catch {
    return true;
  }
}

// Points on the curve but outside the prime-order subgroup, from the smallest x with a root;
// noble's own isTorsionFree confirms they are outside, and its decoder rejects them.
function g1OffSubgroup() {
  const out = [];
  for (let x = 1n; out.length < 2; ++x) {
    const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
    if (!fpIsSquare(rhs)) continue;
    const y = Fp.sqrt(rhs);
    const P = G1.fromAffine({ x, y });
    if (P.isTorsionFree()) continue;
    const c = g1RawCompressed(x, y);
    const u = g1RawUncompressed(x, y);
    if (!rejects(() => G1.fromHex(c)) || !rejects(() => G1.fromHex(u))) throw new Error('noble accepted');
    out.push({ compressed: c, uncompressed: u, x: fpHex(x), y: fpHex(y) });
  }
  return out;
}

function g2OffSubgroup() {
  const b = Fp2.fromBigTuple([4n, 4n]);
  const out = [];
  for (let i = 1n; out.length < 2; ++i) {
    const x = Fp2.fromBigTuple([i, 1n]);
    const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), b);
    if (!fp2IsSquare(rhs)) continue;
    const y = Fp2.sqrt(rhs);
    const P = G2.fromAffine({ x, y });
    if (P.isTorsionFree()) continue;
    const c = g2RawCompressed(x, y);
    const u = g2RawUncompressed(x, y);
    if (!rejects(() => G2.fromHex(c)) || !rejects(() => G2.fromHex(u))) throw new Error('noble accepted');
    out.push({ compressed: c, uncompressed: u, x: fp2Hex(x), y: fp2Hex(y) });
  }
  return out;
}

// Smallest x >= 1 whose right-hand side has no square root: no point has this x.
function g1OffCurveX() {
  for (let x = 1n; ; ++x) if (!fpIsSquare(Fp.add(Fp.mul(Fp.sqr(x), x), 4n))) return x;
}
function g2OffCurveX() {
  const b = Fp2.fromBigTuple([4n, 4n]);
  for (let i = 1n; ; ++i) {
    const x = Fp2.fromBigTuple([i, 1n]);
    if (!fp2IsSquare(Fp2.add(Fp2.mul(Fp2.sqr(x), x), b))) return x;
  }
}

// Invalid encodings with the decode_error cuzk must report (names mirror cuzk::ec::decode_error).
// Where a case depends only on flags, it is built from a valid encoding so that nothing else is
// wrong with it.
function g1Invalid(offSub) {
  const P = mulBase(G1, randFr('g1/invalid/p'));
  const c = bytesHex(P.toBytes(true));
  const u = bytesHex(P.toBytes(false));
  const { x, y } = P.toAffine();
  const zeros48 = '00'.repeat(48);
  // The smallest x with a point: x + p still fits below 2^381, so the flag bits stay free.
  let xs = 1n;
  while (!fpIsSquare(Fp.add(Fp.mul(Fp.sqr(xs), xs), 4n))) ++xs;
  const ys = Fp.sqrt(Fp.add(Fp.mul(Fp.sqr(xs), xs), 4n));
  const offX = g1OffCurveX();
  const cases = [
    { name: 'compressed without the compression bit', form: 'compressed', hex: clearFlags(c, 0x80), error: 'bad_flags' },
    { name: 'compressed infinity with the sort bit', form: 'compressed', hex: withFlags(zeros48, 0xe0), error: 'bad_flags' },
    { name: 'compressed infinity with a non-zero byte', form: 'compressed', hex: withFlags('00'.repeat(47) + '01', 0xc0), error: 'bad_infinity' },
    { name: 'compressed x equal to p', form: 'compressed', hex: withFlags(fpHex(p), 0x80), error: 'non_canonical' },
    { name: 'compressed x plus p', form: 'compressed', hex: withFlags(fpHex(xs + p), 0x80 | (fpLargest(ys) ? 0x20 : 0)), error: 'non_canonical' },
    { name: 'compressed x with no point', form: 'compressed', hex: withFlags(fpHex(offX), 0x80), error: 'not_on_curve' },
    { name: 'compressed outside the subgroup', form: 'compressed', hex: offSub[0].compressed, error: 'not_in_subgroup' },
    { name: 'uncompressed with the compression bit', form: 'uncompressed', hex: withFlags(u, 0x80), error: 'bad_flags' },
    { name: 'uncompressed with the sort bit', form: 'uncompressed', hex: withFlags(u, 0x20), error: 'bad_flags' },
    { name: 'uncompressed infinity with the sort bit', form: 'uncompressed', hex: withFlags('00'.repeat(96), 0x60), error: 'bad_flags' },
    { name: 'uncompressed infinity with a non-zero y', form: 'uncompressed', hex: withFlags('00'.repeat(95) + '01', 0x40), error: 'bad_infinity' },
    { name: 'uncompressed x equal to p', form: 'uncompressed', hex: fpHex(p) + fpHex(y), error: 'non_canonical' },
    { name: 'uncompressed y plus p', form: 'uncompressed', hex: fpHex(x) + fpHex(y + p), error: 'non_canonical' },
    { name: 'uncompressed y off by one', form: 'uncompressed', hex: fpHex(x) + fpHex(Fp.add(y, 1n)), error: 'not_on_curve' },
    { name: 'uncompressed outside the subgroup', form: 'uncompressed', hex: offSub[1].uncompressed, error: 'not_in_subgroup' },
  ];
  return cases;
}

function g2Invalid(offSub) {
  const P = mulBase(G2, randFr('g2/invalid/p'));
  const c = bytesHex(P.toBytes(true));
  const u = bytesHex(P.toBytes(false));
  const { x, y } = P.toAffine();
  const offX = g2OffCurveX();
  const flags = (yy) => 0x80 | (fp2Largest(yy) ? 0x20 : 0);
  const cases = [
    { name: 'compressed without the compression bit', form: 'compressed', hex: clearFlags(c, 0x80), error: 'bad_flags' },
    { name: 'compressed infinity with the sort bit', form: 'compressed', hex: withFlags('00'.repeat(96), 0xe0), error: 'bad_flags' },
    { name: 'compressed infinity with a non-zero c0 byte', form: 'compressed', hex: withFlags('00'.repeat(95) + '01', 0xc0), error: 'bad_infinity' },
    { name: 'compressed x.c1 equal to p', form: 'compressed', hex: withFlags(fpHex(p) + fpHex(x.c0), 0x80), error: 'non_canonical' },
    { name: 'compressed x.c0 equal to p', form: 'compressed', hex: withFlags(fpHex(x.c1) + fpHex(p), 0x80), error: 'non_canonical' },
    { name: 'compressed x.c0 plus p', form: 'compressed', hex: withFlags(fpHex(x.c1) + fpHex(x.c0 + p), flags(y)), error: 'non_canonical' },
    { name: 'compressed x with no point', form: 'compressed', hex: withFlags(fpHex(offX.c1) + fpHex(offX.c0), 0x80), error: 'not_on_curve' },
    { name: 'compressed outside the subgroup', form: 'compressed', hex: offSub[0].compressed, error: 'not_in_subgroup' },
    { name: 'uncompressed with the compression bit', form: 'uncompressed', hex: withFlags(u, 0x80), error: 'bad_flags' },
    { name: 'uncompressed with the sort bit', form: 'uncompressed', hex: withFlags(u, 0x20), error: 'bad_flags' },
    { name: 'uncompressed infinity with the sort bit', form: 'uncompressed', hex: withFlags('00'.repeat(192), 0x60), error: 'bad_flags' },
    { name: 'uncompressed infinity with a non-zero y.c0', form: 'uncompressed', hex: withFlags('00'.repeat(191) + '01', 0x40), error: 'bad_infinity' },
    { name: 'uncompressed x.c0 equal to p', form: 'uncompressed', hex: fpHex(x.c1) + fpHex(p) + fpHex(y.c1) + fpHex(y.c0), error: 'non_canonical' },
    { name: 'uncompressed y.c1 plus p', form: 'uncompressed', hex: fpHex(x.c1) + fpHex(x.c0) + fpHex(y.c1 + p) + fpHex(y.c0), error: 'non_canonical' },
    { name: 'uncompressed y.c0 off by one', form: 'uncompressed', hex: fpHex(x.c1) + fpHex(x.c0) + fpHex(y.c1) + fpHex(Fp.add(y.c0, 1n)), error: 'not_on_curve' },
    { name: 'uncompressed outside the subgroup', form: 'uncompressed', hex: offSub[1].uncompressed, error: 'not_in_subgroup' },
  ];
  return cases;
}

// ---- assemble ------------------------------------------------------------------------------

const g1Off = g1OffSubgroup();
const g2Off = g2OffSubgroup();
const vectors = {
  source: `@noble/curves ${nobleVersion} (tests/oracle/gen_vectors.mjs)`,
  fp: { modulus: fpHex(p), cases: primeFieldCases(Fp, fpHex, randFp, 'fp') },
  fr: { modulus: frHex(r), cases: primeFieldCases(Fr, frHex, randFr, 'fr') },
  fp2: { cases: fp2Cases() },
  g1: { ...curveCases(G1, 'g1'), not_in_subgroup: g1Off, invalid: g1Invalid(g1Off) },
  g2: { ...curveCases(G2, 'g2'), not_in_subgroup: g2Off, invalid: g2Invalid(g2Off) },
};

const outPath = join(here, '..', 'data', 'vectors.json');
writeFileSync(outPath, JSON.stringify(vectors, null, 1) + '\n');
console.log(`wrote ${outPath}`);
