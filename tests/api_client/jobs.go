package main

import (
	"bytes"
	"time"

	"google.golang.org/grpc/codes"

	pb "cuzkapi/cuzkv1"
)

// idempotentResubmission: request_id is an idempotency key for an identical request only. The same request
// twice is one job; the same id with another payload is a new job with its own proof.
func (s *session) idempotentResubmission() {
	const name = "idempotency"
	req := testCircuitRequest("api-go-idem", "mul:64", 2, 1)
	first, err1 := s.submit("api-go-idem seed 1", req)
	again, err2 := s.submit("api-go-idem seed 1, again", req)
	if err1 != nil || err2 != nil {
		s.c.fail(name+": submit twice", "%v / %v", err1, err2)
		return
	}
	s.c.expect(name+": the same request twice is one job", first.JobId == again.JobId, "job ids %s and %s",
		first.JobId, again.JobId)
	r, _, err := s.await(first.JobId, 0)
	if !s.c.expect(name+": job COMPLETED with 2 partition proofs",
		err == nil && r.Status == pb.AwaitProofResponse_COMPLETED && len(r.Proof) == 2*partitionProofBytes,
		"%v %s", err, summaryOf(r)) {
		return
	}

	other, err := s.submit("api-go-idem seed 2", testCircuitRequest("api-go-idem", "mul:64", 2, 2))
	if err != nil {
		s.c.fail(name+": reused request id, another payload", "%v", err)
		return
	}
	s.c.expect(name+": reused request id with another payload is a new job", other.JobId != first.JobId,
		"job id %s again", other.JobId)
	r2, _, err := s.await(other.JobId, 0)
	if !s.c.expect(name+": the new job COMPLETED", err == nil && r2.Status == pb.AwaitProofResponse_COMPLETED &&
		len(r2.Proof) == 2*partitionProofBytes, "%v %s", err, summaryOf(r2)) {
		return
	}
	s.c.expect(name+": the new job has another proof", !bytes.Equal(r.Proof, r2.Proof), "the proofs are equal")

	// Kept for the cancel check of a finished job.
	s.finishedJob = first.JobId
}

// awaitTimeout: AwaitProof's timeout_ms is honoured and leaves the job running.
func (s *session) awaitTimeout() {
	const name = "await timeout"
	sub, err := s.submit("mul:4096 x6", testCircuitRequest("api-go-await", "mul:4096", 6, 7))
	if err != nil {
		s.c.fail(name+": submit", "%v", err)
		return
	}
	r, took, err := s.await(sub.JobId, 1)
	s.c.expect(name+": timeout_ms 1 answers TIMEOUT at once",
		err == nil && r.Status == pb.AwaitProofResponse_TIMEOUT && took < 2*time.Second,
		"%v %s after %v", err, summaryOf(r), took)
	r, _, err = s.await(sub.JobId, 0)
	s.c.expect(name+": the job went on and COMPLETED", err == nil && r.Status == pb.AwaitProofResponse_COMPLETED &&
		len(r.Proof) == 6*partitionProofBytes, "%v %s", err, summaryOf(r))
}

// cancel: CancelProof stops work in flight; cancelling a finished job is harmless, an unknown one NOT_FOUND.
func (s *session) cancel() {
	const name = "cancel"
	sub, err := s.submit("mul:16384 x8", testCircuitRequest("api-go-cancel", "mul:16384", 8, 11))
	if err != nil {
		s.c.fail(name+": submit", "%v", err)
		return
	}
	r, _, err := s.await(sub.JobId, 1500)
	if s.c.expect(name+": work in flight (AwaitProof 1500 ms: TIMEOUT)",
		err == nil && r.Status == pb.AwaitProofResponse_TIMEOUT, "%v %s", err, summaryOf(r)) {
		c, err := s.cancelJob(sub.JobId)
		s.c.expect(name+": was_running", err == nil && c.WasRunning, "%v %v", err, c)
		r, _, err = s.await(sub.JobId, 0)
		s.c.expect(name+": the job is CANCELLED", err == nil && r.Status == pb.AwaitProofResponse_CANCELLED,
			"%v %s", err, summaryOf(r))
	} else {
		_, _ = s.cancelJob(sub.JobId)
	}

	if s.finishedJob != "" {
		c, err := s.cancelJob(s.finishedJob)
		s.c.expect(name+": a COMPLETED job: was_running false", err == nil && !c.WasRunning, "%v %v", err, c)
	} else {
		s.c.fail(name+": a COMPLETED job", "no completed job to cancel (the idempotency check failed)")
	}
	_, err = s.cancelJob("987654321")
	s.c.expectCode(name+": an unknown job is NOT_FOUND", err, codes.NotFound, "")
}
