// An independent Groth16 verifier: reads a bellperson .vk file, a 192-byte proof and a JSON array of
// public inputs (decimal strings, ONE excluded) exactly as they are on disk, and checks
//   e(A, B) = e(alpha, beta) * e(IC, gamma) * e(C, delta),   IC = ic[0] + sum x_i ic[i+1]
// with @noble/curves' pairing. It shares no code with cuzk: it is the test's second opinion.
// Usage: node verify_groth16.mjs VK PROOF INPUTS_JSON   -> prints valid/invalid, exit 0/1 (2 on bad input)
import { readFileSync } from 'node:fs';
import { bls12_381 as bls } from '@noble/curves/bls12-381';

const G1 = bls.G1.ProjectivePoint;
const G2 = bls.G2.ProjectivePoint;

function fail(msg) {
  console.error(`verify_groth16: ${msg}`);
  process.exit(2);
}

const [vkPath, proofPath, inputsPath] = process.argv.slice(2);
if (!inputsPath) fail('usage: node verify_groth16.mjs VK PROOF INPUTS_JSON');

const vk = readFileSync(vkPath);
let off = 0;
function take(n, what) {
  if (off + n > vk.length) fail(`${vkPath}: truncated reading ${what} at byte ${off}`);
  const b = vk.subarray(off, off + n);
  off += n;
  return b;
}
const alpha = G1.fromHex(take(96, 'alpha_g1'));
take(96, 'beta_g1');
const beta = G2.fromHex(take(192, 'beta_g2'));
const gamma = G2.fromHex(take(192, 'gamma_g2'));
take(96, 'delta_g1');
const delta = G2.fromHex(take(192, 'delta_g2'));
const nIc = take(4, 'ic length').readUInt32BE(0);
const ic = [];
for (let i = 0; i < nIc; i++) ic.push(G1.fromHex(take(96, `ic[${i}]`)));
if (off !== vk.length) fail(`${vkPath}: ${vk.length - off} trailing bytes after ic`);

const proof = readFileSync(proofPath);
if (proof.length !== 192) fail(`${proofPath}: proof is ${proof.length} bytes, expected 192`);
const A = G1.fromHex(proof.subarray(0, 48));
const B = G2.fromHex(proof.subarray(48, 144));
const C = G1.fromHex(proof.subarray(144, 192));

const inputs = JSON.parse(readFileSync(inputsPath, 'utf8')).map((s) => BigInt(s));
if (inputs.length + 1 !== ic.length) fail(`${inputs.length} inputs but the vk has ${ic.length} ic points`);

let acc = ic[0];
inputs.forEach((x, i) => {
  const k = x % bls.fields.Fr.ORDER;
  if (k !== 0n) acc = acc.add(ic[i + 1].multiply(k));
});

const product = bls.pairingBatch([
  { g1: A, g2: B },
  { g1: acc.negate(), g2: gamma },
  { g1: C.negate(), g2: delta },
  { g1: alpha.negate(), g2: beta },
]);
const ok = bls.fields.Fp12.eql(product, bls.fields.Fp12.ONE);
console.log(ok ? 'valid' : 'invalid');
process.exit(ok ? 0 : 1);
