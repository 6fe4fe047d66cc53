// Writes tests/data/pairing_vectors.json: BLS12-381 pairing values computed by @noble/curves, an
// implementation independent of cuzk. Deterministic: scalars and field elements are SHA-256 of fixed
// labels, so rerunning the script reproduces the file byte for byte.
//
//   cd tests/oracle && npm ci && node gen_pairing_vectors.mjs
//
// An Fp12 value is an array of 12 big-endian Fp hex strings (48 bytes, no 0x) in noble's tower order
//   c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, ..., c1.c2.c1
// for Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - (1 + u)), Fp2 = Fp[u]/(u^2 + 1).
// Points are affine: G1 {x, y}, G2 {x: {c0, c1}, y: {c0, c1}}. Scalars are 32-byte hex.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const here = dirname(fileURLToPath(import.meta.url));
const nobleVersion = JSON.parse(
  readFileSync(join(here, 'node_modules/@noble/curves/package.json'), 'utf8')
).version;

const { Fp, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const p = Fp.ORDER;
const r = Fr.ORDER;

const sha256 = (label) => createHash('sha256').update(label).digest();
// 512 bits from a label: reducing it modulo p or r is near uniform.
const wideInt = (label) =>
  BigInt('0x' + Buffer.concat([sha256(label + '/0'), sha256(label + '/1')]).toString('hex'));
const randFr = (label) => wideInt('pairing/fr/' + label) % r;
const randFp = (label) => wideInt('pairing/fp/' + label) % p;

const hexN = (v, bytes) => {
  const s = v.toString(16).padStart(2 * bytes, '0');
  if (v < 0n || s.length !== 2 * bytes) throw new Error('value out of range: ' + v.toString(16));
  return s;
};
const fpHex = (v) => hexN(v, 48);
const frHex = (v) => hexN(v, 32);
const fp2Hex = (v) => ({ c0: fpHex(v.c0), c1: fpHex(v.c1) });

function fp12Coords(f) {
  const out = [];
  for (const c6 of [f.c0, f.c1]) for (const c2 of [c6.c0, c6.c1, c6.c2]) out.push(c2.c0, c2.c1);
  return out;
}
const fp12Hex = (f) => fp12Coords(f).map(fpHex);
function fp12FromCoords(a) {
  const fp2 = (i) => ({ c0: a[i], c1: a[i + 1] });
  const fp6 = (i) => ({ c0: fp2(i), c1: fp2(i + 2), c2: fp2(i + 4) });
  return { c0: fp6(0), c1: fp6(6) };
}

const g1Json = (P) => {
  const a = P.toAffine();
  return { x: fpHex(a.x), y: fpHex(a.y) };
};
const g2Json = (Q) => {
  const a = Q.toAffine();
  return { x: fp2Hex(a.x), y: fp2Hex(a.y) };
};

// e([a]G1, [b]G2) with the points written out, so a test can check its own scalar multiplication
// and its pairing separately.
function scaledPair(a, b) {
  const P = G1.BASE.multiply(a);
  const Q = G2.BASE.multiply(b);
  return { a: frHex(a), b: frHex(b), g1: g1Json(P), g2: g2Json(Q), e: fp12Hex(bls12_381.pairing(P, Q)) };
}

const generator = bls12_381.pairing(G1.BASE, G2.BASE);

const scaled = [
  scaledPair(2n, 3n),
  scaledPair(r - 1n, 5n),
  scaledPair(randFr('a0'), randFr('b0')),
  scaledPair(randFr('a1'), randFr('b1')),
];

// A Groth16-verify-shaped product of three pairings.
const multiTerms = [0, 1, 2].map((i) => ({ a: randFr('ma' + i), b: randFr('mb' + i) }));
const multiPoints = multiTerms.map(({ a, b }) => ({ g1: G1.BASE.multiply(a), g2: G2.BASE.multiply(b) }));
const multi = {
  terms: multiTerms.map(({ a, b }, i) => ({
    a: frHex(a),
    b: frHex(b),
    g1: g1Json(multiPoints[i].g1),
    g2: g2Json(multiPoints[i].g2),
  })),
  product: fp12Hex(bls12_381.pairingBatch(multiPoints)),
};

// The final exponentiation alone, on an arbitrary (non-cyclotomic) element.
const feInput = fp12FromCoords(Array.from({ length: 12 }, (_, i) => randFp('fe' + i)));
const finalExp = { input: fp12Hex(feInput), output: fp12Hex(Fp12.finalExponentiate(feInput)) };

// noble's final exponent, from its own arithmetic: f^E must equal finalExponentiate(f).
const E = (3n * (p ** 12n - 1n)) / r;
if ((3n * (p ** 12n - 1n)) % r !== 0n) throw new Error('r does not divide p^12 - 1');
const check = Fp12.pow(feInput, E);
if (fp12Coords(check).some((c, i) => c !== fp12Coords(Fp12.finalExponentiate(feInput))[i])) {
  throw new Error('finalExponentiate is not f^(3 (p^12 - 1)/r)');
}

const vectors = {
  generator: `@noble/curves ${nobleVersion}, tests/oracle/gen_pairing_vectors.mjs`,
  final_exponent: E.toString(16),
  generator_pairing: fp12Hex(generator),
  scaled_pairings: scaled,
  multi_pairing: multi,
  final_exponentiation: finalExp,
};

const outPath = join(here, '..', 'data', 'pairing_vectors.json');
writeFileSync(outPath, JSON.stringify(vectors, null, 1) + '\n');
console.log('wrote', outPath);
