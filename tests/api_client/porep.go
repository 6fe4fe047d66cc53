package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/ioutil"
	"strings"

	pb "cuzkapi/cuzkv1"
)

const (
	sectorSize2KiB = 2048
	// Go abi RegisteredSealProof numbers: StackedDrg{2KiB,...}V1 = 0..4, V1_1 = 5..9.
	stackedDrg2KiBV1    = 0
	stackedDrg2KiBV1_1  = 5
	partitionProofBytes = 192
)

// porepSector is a sealed 2 KiB test sector: its C1 and the values it was sealed with.
type porepSector struct {
	c1       []byte
	sectorID uint64
	minerID  uint64
}

// proverID is filecoin-ffi's toProverID: the unsigned LEB128 of the actor id, zero padded to 32 bytes.
func proverID(minerID uint64) [32]byte {
	var id [32]byte
	i := 0
	for {
		b := byte(minerID & 0x7f)
		minerID >>= 7
		if minerID == 0 {
			id[i] = b
			return id
		}
		id[i] = b | 0x80
		i++
	}
}

func loadPorepSector(c1Path, sealPath string, minerID uint64) (porepSector, error) {
	c1, err := ioutil.ReadFile(c1Path)
	if err != nil {
		return porepSector{}, err
	}
	text, err := ioutil.ReadFile(sealPath)
	if err != nil {
		return porepSector{}, err
	}
	var seal struct {
		SectorID uint64 `json:"sector_id"`
		ProverID string `json:"prover_id"`
	}
	if err := json.Unmarshal(text, &seal); err != nil {
		return porepSector{}, fmt.Errorf("%s: %v", sealPath, err)
	}
	// The service derives the prover id from miner_id: the sector must have been sealed with that one.
	want := proverID(minerID)
	if seal.ProverID != hex.EncodeToString(want[:]) {
		return porepSector{}, fmt.Errorf("%s: prover_id %s is not miner %d's (%x): seal with --prover-id %x",
			sealPath, seal.ProverID, minerID, want, want)
	}
	return porepSector{c1: c1, sectorID: seal.SectorID, minerID: minerID}, nil
}

// curioWrapper is the PoRep vanilla_proof as Curio's lib/ffi sends it: Go's JSON of this struct, whose
// []byte field encoding/json writes as base64.
func curioWrapper(sectorNum uint64, c1 []byte, sectorSize uint64) []byte {
	text, _ := json.Marshal(struct {
		SectorNum  uint64
		Phase1Out  []byte
		SectorSize uint64
	}{sectorNum, c1, sectorSize})
	return text
}

// porepRequest is the request Curio's PoRep task makes (tasks/seal/task_porep.go).
func porepRequest(requestID string, registeredProof uint64, minerID, sectorID uint64, c1 []byte) *pb.SubmitProofRequest {
	return &pb.SubmitProofRequest{
		RequestId:       requestID,
		ProofKind:       pb.ProofKind_POREP_SEAL_COMMIT,
		SectorSize:      sectorSize2KiB,
		RegisteredProof: registeredProof,
		Priority:        pb.Priority_NORMAL,
		VanillaProof:    curioWrapper(sectorID, c1, sectorSize2KiB),
		SectorNumber:    sectorID,
		MinerId:         minerID,
	}
}

// provePorep: Curio's PoRep call, under |id| (empty: Curio's "porep-<miner>-<sector>").
func (s *session) provePorep(p porepSector, id, proofOut string) {
	const name = "prove porep 2KiB"
	if id == "" {
		id = fmt.Sprintf("porep-%d-%d", p.minerID, p.sectorID)
	}
	r, err := s.prove(id, porepRequest(id, stackedDrg2KiBV1_1, p.minerID, p.sectorID, p.c1))
	if err != nil {
		s.c.fail(name, "%v", err)
		return
	}
	if !s.c.expect(name+": status COMPLETED", r.Status == pb.AwaitProofResponse_COMPLETED, "status %v, error %q",
		r.Status, r.ErrorMessage) {
		return
	}
	s.c.expect(name+": one 192-byte partition proof", len(r.Proof) == partitionProofBytes, "%d bytes", len(r.Proof))
	s.c.expect(name+": timings", r.TotalMs > 0 && r.SynthesisMs > 0 && r.GpuComputeMs > 0 && r.QueueWaitMs <= r.TotalMs,
		"total %d ms, synthesis %d ms, gpu %d ms, queue wait %d ms", r.TotalMs, r.SynthesisMs, r.GpuComputeMs, r.QueueWaitMs)
	if err := ioutil.WriteFile(proofOut, r.Proof, 0o644); err != nil {
		s.c.fail(name+": write the proof", "%v", err)
		return
	}
	fmt.Printf("  wrote %s (%d bytes)\n", proofOut, len(r.Proof))
}

// missingParameters: a C1 whose parameters were never made is a FAILED job naming the file, not an error of
// the call.
func (s *session) missingParameters(p porepSector) {
	const name = "prove porep V1 without parameters"
	id := fmt.Sprintf("porep-%d-%d", p.minerID, p.sectorID)
	r, err := s.prove(id, porepRequest(id, stackedDrg2KiBV1, p.minerID, p.sectorID, p.c1))
	if err != nil {
		s.c.fail(name, "the call failed: %v; expected a reply with status FAILED", err)
		return
	}
	s.c.expect(name+": FAILED naming the .params file", r.Status == pb.AwaitProofResponse_FAILED &&
		strings.Contains(r.ErrorMessage, ".params"), "status %v, error %q", r.Status, r.ErrorMessage)
}
