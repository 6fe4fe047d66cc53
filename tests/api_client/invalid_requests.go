package main

import (
	"fmt"

	"google.golang.org/grpc/codes"

	pb "cuzkapi/cuzkv1"
)

// invalidRequests: each malformed request is refused with Curio's expected gRPC code and a message naming
// the field; a proof kind not proved yet (SnapDeals) is UNIMPLEMENTED.
func (s *session) invalidRequests(p porepSector) {
	const name = "invalid request"
	good := func(id string) *pb.SubmitProofRequest {
		return porepRequest(id, stackedDrg2KiBV1_1, p.minerID, p.sectorID, p.c1)
	}
	refused := func(what string, req *pb.SubmitProofRequest, code codes.Code, field string) {
		r, err := s.submit(what, req)
		check := fmt.Sprintf("%s: %s -> %v", name, what, code)
		if field != "" {
			check += fmt.Sprintf(" naming %q", field)
		}
		s.c.expectCode(check, err, code, field)
		if err == nil && r.JobId != "" {
			_, _ = s.cancelJob(r.JobId) // accepted by mistake: do not leave it to the next checks
		}
	}

	req := good("api-go-bad-kind-0")
	req.ProofKind = pb.ProofKind_PROOF_KIND_UNSPECIFIED
	refused("proof_kind 0", req, codes.InvalidArgument, "proof_kind")

	req = good("api-go-bad-kind-9")
	req.ProofKind = pb.ProofKind(9)
	refused("proof_kind 9", req, codes.InvalidArgument, "proof_kind")

	req = good("api-go-bad-json")
	req.VanillaProof = []byte("not json")
	refused("vanilla_proof not JSON", req, codes.InvalidArgument, "vanilla_proof")

	req = good("api-go-bad-size")
	req.SectorSize = 32 << 30
	refused("registered_proof 5 with sector_size 32 GiB", req, codes.InvalidArgument, "sector_size")

	req = good("api-go-bad-proof")
	req.RegisteredProof = 42
	refused("registered_proof 42", req, codes.InvalidArgument, "registered_proof")

	randomness := make([]byte, 32)
	post := func(kind pb.ProofKind, registered uint64) *pb.SubmitProofRequest {
		return &pb.SubmitProofRequest{RequestId: fmt.Sprintf("api-go-kind-%d-%d", kind, registered), ProofKind: kind,
			SectorSize: sectorSize2KiB, RegisteredProof: registered, Priority: pb.Priority_NORMAL,
			VanillaProofs: [][]byte{{1, 2, 3, 4}}, SectorNumber: p.sectorID, MinerId: p.minerID, Randomness: randomness}
	}
	refused("SNAP_DEALS_UPDATE without its commitments", post(pb.ProofKind_SNAP_DEALS_UPDATE, 0),
		codes.InvalidArgument, "comm_r_old")
	// PoSt: RegisteredPoStProof 0 is Winning 2 KiB, 10 Window 2 KiB V1_1; four bytes are no vanilla proof.
	refused("WINDOW_POST_PARTITION of a Winning proof", post(pb.ProofKind_WINDOW_POST_PARTITION, 0),
		codes.InvalidArgument, "registered_proof")
	refused("WINDOW_POST_PARTITION, 4-byte vanilla proof", post(pb.ProofKind_WINDOW_POST_PARTITION, 10),
		codes.InvalidArgument, "vanilla proof 0")
	refused("WINNING_POST, 4-byte vanilla proof", post(pb.ProofKind_WINNING_POST, 0), codes.InvalidArgument,
		"vanilla proof 0")

	ctx, cancel := deadline(callLimit)
	defer cancel()
	_, err := s.api.Prove(ctx, &pb.ProveRequest{})
	s.c.expectCode(name+": Prove without submit -> InvalidArgument naming \"submit\"", err, codes.InvalidArgument, "submit")

	_, _, err = s.await("999999999", 1)
	s.c.expectCode(name+": AwaitProof of an unknown job -> NotFound", err, codes.NotFound, "")
}
