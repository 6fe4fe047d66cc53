// cuzk-api-client: an integration-test client of the cuzk.v1.ProvingEngine gRPC API, written in Go with
// grpc-go because Curio's client is: an independent implementation of the wire (its own generated code,
// its own HTTP/2 stack) connecting as Curio's lib/cuzk/client.go does (plaintext, unix:// or host:port,
// 256 MiB messages), so what passes here is what Curio would get.
//
// It checks, in order (each check prints "ok: <name>" or "FAIL: <name>: <why>"; exit status 1 if any failed):
//   - Prove of a 2 KiB PoRep C1 in Curio's wrapper JSON: COMPLETED, one 192-byte partition proof (written to
//     --proof-out for `cuzk verify-seal`), timings filled;
//   - an idempotent resubmission (same request twice: one job) and a reused request id with another payload
//     (a new job, another proof);
//   - AwaitProof with a timeout that expires (TIMEOUT, the job goes on) and without one (COMPLETED);
//   - CancelProof of work in flight (was_running, then CANCELLED), of a finished job, of an unknown job;
//   - each malformed request: the gRPC status code and a message naming the field; Prove of a C1 whose
//     parameters are missing: status FAILED naming the file;
//   - PreloadSRS / EvictSRS, GetStatus, GetMetrics.
//
// Jobs of proof kind 100 are the service's built-in test circuits, a test facility outside Curio's enum.
// --only prove runs the first check alone (the driver's second phase, over TCP).
// Every call prints a one-line summary of its reply.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

type options struct {
	addr      string
	c1        string
	seal      string
	c1V1      string
	sealV1    string
	proofOut  string
	only      string
	requestID string
	minerID   uint64
	dialLimit time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.addr, "addr", "", "the service's address: unix:///path/cuzk.sock or host:port, as Curio's [Cuzk] Address")
	flag.StringVar(&o.c1, "c1", "", "a 2 KiB StackedDrg2KiBV1_1 C1 (c1.json of `cuzk seal-test`)")
	flag.StringVar(&o.seal, "seal", "", "its seal.json (sector_id)")
	flag.StringVar(&o.c1V1, "c1-v1", "", "a StackedDrg2KiBV1 C1 whose parameters are missing (its proof must fail)")
	flag.StringVar(&o.sealV1, "seal-v1", "", "its seal.json")
	flag.StringVar(&o.proofOut, "proof-out", "", "where the PoRep proof is written")
	flag.StringVar(&o.only, "only", "", "\"prove\": the PoRep Prove check alone")
	flag.StringVar(&o.requestID, "request-id", "", "the PoRep Prove's request_id (default Curio's porep-<miner>-<sector>)")
	flag.Uint64Var(&o.minerID, "miner-id", 1000, "the miner actor id; seal-test's --prover-id must be its LEB128")
	flag.DurationVar(&o.dialLimit, "dial-timeout", 30*time.Second, "how long to wait for the connection")
	flag.Parse()
	if o.addr == "" || o.c1 == "" || o.seal == "" || o.proofOut == "" || (o.only == "" && (o.c1V1 == "" || o.sealV1 == "")) {
		fmt.Fprintln(os.Stderr, "cuzk-api-client: --addr, --c1, --seal, --proof-out (and --c1-v1, --seal-v1 unless --only prove) are required")
		os.Exit(2)
	}
	if o.only != "" && o.only != "prove" {
		fmt.Fprintf(os.Stderr, "cuzk-api-client: --only %q: the only choice is \"prove\"\n", o.only)
		os.Exit(2)
	}

	c := &checker{}
	conn, err := dial(o.addr, o.dialLimit)
	if err != nil {
		c.fail("connect", "%s: %v", o.addr, err)
		os.Exit(1)
	}
	defer conn.Close()
	c.ok("connect " + o.addr)
	s := newSession(conn, c)

	porep, err := loadPorepSector(o.c1, o.seal, o.minerID)
	if err != nil {
		c.fail("inputs", "%v", err)
		os.Exit(1)
	}
	s.provePorep(porep, o.requestID, o.proofOut)
	if o.only == "" {
		s.idempotentResubmission()
		s.awaitTimeout()
		s.cancel()
		s.invalidRequests(porep)
		if v1, err := loadPorepSector(o.c1V1, o.sealV1, o.minerID); err != nil {
			c.fail("inputs", "%v", err)
		} else {
			s.missingParameters(v1)
		}
		s.preloadEvict()
		s.status()
		s.metrics()
	}

	fmt.Printf("%d passed, %d failed\n", c.passed, c.failed)
	if c.failed > 0 {
		os.Exit(1)
	}
}
