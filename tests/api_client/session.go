package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/grpc"

	pb "cuzkapi/cuzkv1"
)

// Per-call deadlines: generous, for a shared two-core machine proving on the CPU.
const (
	proveLimit = 300 * time.Second
	callLimit  = 30 * time.Second
)

// testCircuitKind is the service's built-in test circuits: outside Curio's enum (proto3 enums are open).
const testCircuitKind = pb.ProofKind(100)

// session is one connection and what the checks learnt through it.
type session struct {
	api         pb.ProvingEngineClient
	c           *checker
	completed   map[string]bool // job ids seen COMPLETED, for GetStatus's total
	finishedJob string          // a COMPLETED job, for CancelProof of a finished job
}

func newSession(conn *grpc.ClientConn, c *checker) *session {
	return &session{api: pb.NewProvingEngineClient(conn), c: c, completed: map[string]bool{}}
}

func deadline(limit time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), limit)
}

// testCircuitRequest: a job of a built-in test circuit, |partitions| partitions of |circuit| ("mul:64"),
// the witness drawn from |seed|.
func testCircuitRequest(requestID, circuit string, partitions int, seed uint64) *pb.SubmitProofRequest {
	payload, _ := json.Marshal(struct {
		Circuit    string `json:"circuit"`
		Partitions int    `json:"partitions"`
		Seed       uint64 `json:"seed"`
	}{circuit, partitions, seed})
	return &pb.SubmitProofRequest{RequestId: requestID, ProofKind: testCircuitKind, Priority: pb.Priority_NORMAL,
		VanillaProof: payload}
}

func (s *session) submit(what string, req *pb.SubmitProofRequest) (*pb.SubmitProofResponse, error) {
	ctx, cancel := deadline(callLimit)
	defer cancel()
	r, err := s.api.SubmitProof(ctx, req)
	if err != nil {
		fmt.Printf("  SubmitProof(%s): error %v\n", what, err)
		return nil, err
	}
	fmt.Printf("  SubmitProof(%s): job_id=%s queue_position=%d assigned_gpu=%q\n", what, r.JobId, r.QueuePosition,
		r.AssignedGpu)
	return r, nil
}

// await waits for |job| at most |timeoutMs| on the server (0: until it ends).
func (s *session) await(job string, timeoutMs uint64) (*pb.AwaitProofResponse, time.Duration, error) {
	limit := proveLimit
	if timeoutMs > 0 {
		limit = time.Duration(timeoutMs)*time.Millisecond + callLimit
	}
	ctx, cancel := deadline(limit)
	defer cancel()
	start := time.Now()
	r, err := s.api.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: job, TimeoutMs: timeoutMs})
	took := time.Since(start)
	if err != nil {
		fmt.Printf("  AwaitProof(%s, timeout_ms=%d): error %v after %v\n", job, timeoutMs, err, took)
		return nil, took, err
	}
	fmt.Printf("  AwaitProof(%s, timeout_ms=%d) after %v: %s\n", job, timeoutMs, took.Round(time.Millisecond), describe(r))
	s.noteCompleted(r)
	return r, took, nil
}

func (s *session) prove(what string, req *pb.SubmitProofRequest) (*pb.AwaitProofResponse, error) {
	ctx, cancel := deadline(proveLimit)
	defer cancel()
	start := time.Now()
	r, err := s.api.Prove(ctx, &pb.ProveRequest{Submit: req})
	took := time.Since(start)
	if err != nil {
		fmt.Printf("  Prove(%s): error %v after %v\n", what, err, took)
		return nil, err
	}
	if r.Result == nil {
		fmt.Printf("  Prove(%s) after %v: no result\n", what, took)
		return nil, fmt.Errorf("the reply has no result")
	}
	fmt.Printf("  Prove(%s) after %v: %s\n", what, took.Round(time.Millisecond), describe(r.Result))
	s.noteCompleted(r.Result)
	return r.Result, nil
}

func (s *session) cancelJob(job string) (*pb.CancelProofResponse, error) {
	ctx, cancel := deadline(callLimit)
	defer cancel()
	r, err := s.api.CancelProof(ctx, &pb.CancelProofRequest{JobId: job})
	if err != nil {
		fmt.Printf("  CancelProof(%s): error %v\n", job, err)
		return nil, err
	}
	fmt.Printf("  CancelProof(%s): was_running=%v\n", job, r.WasRunning)
	return r, nil
}

func (s *session) noteCompleted(r *pb.AwaitProofResponse) {
	if r.Status == pb.AwaitProofResponse_COMPLETED {
		s.completed[r.JobId] = true
	}
}

// describe is the one-line summary of a job's reply.
func describe(r *pb.AwaitProofResponse) string {
	line := fmt.Sprintf("job_id=%s status=%v proof=%dB queue_wait=%dms srs_load=%dms synthesis=%dms gpu=%dms total=%dms",
		r.JobId, r.Status, len(r.Proof), r.QueueWaitMs, r.SrsLoadMs, r.SynthesisMs, r.GpuComputeMs, r.TotalMs)
	if r.ErrorMessage != "" {
		line += fmt.Sprintf(" error=%q", r.ErrorMessage)
	}
	return line
}

// summaryOf is describe, or "no reply".
func summaryOf(r *pb.AwaitProofResponse) string {
	if r == nil {
		return "no reply"
	}
	return describe(r)
}
