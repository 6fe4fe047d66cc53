#!/usr/bin/env bash
# The Go client of tests/api_client against the service's gRPC API, as Curio would call it: seals a 2 KiB
# test sector (cuzk seal-test), makes its parameters (cuzk setup), starts the three daemons (cuzk up), runs
# every check of the client over the default unix socket and verifies the proof with cuzk verify-seal; then
# restarts the service listening on 127.0.0.1:<port> and proves again over TCP, as Curio's "host:port".
# Usage: run_test.sh BUILD_DIR. Exit 77 (skipped) when the Go toolchain or grpc-go sources are missing.
# The client is built into BUILD_DIR/api_client (its own GOPATH and GOCACHE), so a rerun rebuilds little.
set -euo pipefail

build=$(cd "${1:?usage: run_test.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
cuzk=$build/cli/cuzk
gocode=/usr/share/gocode

missing=()
for tool in go protoc protoc-gen-go protoc-gen-go-grpc; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
for package in google.golang.org/grpc google.golang.org/protobuf; do
    [[ -d $gocode/src/$package ]] || missing+=("$gocode/src/$package")
done
if ((${#missing[@]})); then
    # ./dev.sh installs them: a machine without them cannot say whether Curio's client is served.
    echo "FAIL: missing ${missing[*]} (Debian: golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc" \
        "golang-google-grpc-dev golang-google-protobuf-dev; ./dev.sh installs them)"
    exit 1
fi
[[ -x $cuzk ]] || { echo "FAIL: $cuzk is not built"; exit 1; }

# The client: generated code in its own GOPATH (the .proto has no go_package: mapped with M, as Curio's is).
out=$build/api_client
mkdir -p "$out/gopath/src"
protoc -I "$source_dir/api/proto" \
    --go_out="$out/gopath/src" --go_opt=Mcuzk/v1/proving.proto=cuzkapi/cuzkv1 \
    --go-grpc_out="$out/gopath/src" --go-grpc_opt=Mcuzk/v1/proving.proto=cuzkapi/cuzkv1 \
    cuzk/v1/proving.proto
client=$out/cuzk-api-client
(cd "$here" && GO111MODULE=off GOFLAGS='' GOENV=off GOPATH="$out/gopath:$gocode" GOCACHE="$out/gocache" \
    go build -o "$client" .)

# A short directory: the unix socket's path must fit 107 bytes.
dir=$(mktemp -d /tmp/cuzk-go-XXXX)
tag=$(basename "$dir")
ring=$tag-ring
lock=$tag-lock
config=$dir/cuzk.toml
started=0

finish() {
    local rc=$?
    if ((started)); then
        "$cuzk" down --config "$config" >/dev/null 2>&1 || true
    fi
    if ((rc != 0 && rc != 77)); then
        for log in "$dir"/rt/logs/*.log; do
            [[ -f $log ]] || continue
            echo "---- $(basename "$log") (last 4000 bytes) ----"
            tail -c 4000 "$log"
            echo
        done
    fi
    rm -f "/dev/shm/$ring" "/dev/shm/$lock"
    rm -rf "$dir"
    exit "$rc"
}
trap finish EXIT

# One partition of a 2 KiB PoRep on the CPU: a 16 MiB slot holds its compact witness (2.2 MB), and it takes
# tens of seconds on two cores (no re-dispatch meanwhile). No metrics HTTP port: tests running beside this one
# would share it.
cat >"$config" <<TOML
[runtime]
dir = "$dir/rt"
spool_dir = "$dir/spool"
log_level = "info"
[ring]
name = "$ring"
slots = 2
slot_bytes = $((16 << 20))
[assemblerd]
partition_timeout_s = 1800
[synthd]
threads = 1
lookahead = 1
[gpud]
backend = "cpu"
workers = 1
lock_name = "$lock"
params_dir = "$dir/params"
[metrics]
listen = ""
TOML

# The service derives the prover id from miner_id: unsigned LEB128 of 1000 (e8 07), zero padded.
miner_id=1000
prover_id=e807$(printf '0%.0s' {1..60})
sector_id=42
step() { printf '== %s\n' "$*"; }

step "seal-test: a 2 KiB V1_1 sector, and a V1 one whose parameters are never made"
"$cuzk" seal-test --registered-proof StackedDrg2KiBV1_1 --prover-id "$prover_id" --sector-id "$sector_id" --rng api-go \
    --out "$dir/sector" >/dev/null
"$cuzk" seal-test --registered-proof StackedDrg2KiBV1 --prover-id "$prover_id" --sector-id "$((sector_id + 1))" --rng api-go \
    --out "$dir/v1" >/dev/null
# `cuzk setup --circuit C`'s parameters, made once per build of cuzk and shared with the C++ tests (the same
# directory, lock and stamp as tests/support/shared_outputs.hpp's cuzk_output_once), linked into $dir/params.
shared_setup() {
    local args=(setup --circuit "$1") root=$build/test-outputs key stamp
    key="${args[*]}"
    stamp=$(printf '%s\n%s' "$key" "$(stat -c '%s %.9Y' "$cuzk")")
    key=${key//[^A-Za-z0-9._-]/_}
    mkdir -p "$root"
    (
        flock 9
        if [[ ! -d $root/$key || "$(cat "$root/$key.made" 2>/dev/null)" != "$stamp" ]]; then
            rm -rf "${root:?}/$key" "$root/$key.made"
            mkdir -p "$root/$key"
            "$cuzk" "${args[@]}" --out "$root/$key" || exit 1
            printf '%s\n' "$stamp" >"$root/$key.made"
        fi
    ) 9>"$root/$key.lock" || return 1
    mkdir -p "$dir/params"
    local f
    for f in "$root/$key"/*; do ln -sf "$f" "$dir/params/"; done
}
step "setup: porep:StackedDrg2KiBV1_1 parameters"
shared_setup porep:StackedDrg2KiBV1_1 || { echo "FAIL: cuzk setup --circuit porep:StackedDrg2KiBV1_1"; exit 1; }

# A value of seal.json (one "key": value per line).
seal_value() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" "$dir/sector/seal.json"; }

# The verifying key under its test name, else under its official one.
vk=$dir/params/porep_StackedDrg2KiBV1_1.vk
if [[ ! -f $vk ]]; then
    vk=$(find "$dir/params" -name 'v28-stacked-proof-of-replication-*.vk' | head -n 1)
fi

verify() {
    step "verify-seal $1"
    local verdict
    verdict=$("$cuzk" verify-seal --vk "$vk" --registered-proof StackedDrg2KiBV1_1 --sector-id "$(seal_value sector_id)" \
        --prover-id "$(seal_value prover_id)" --ticket "$(seal_value ticket)" --seed "$(seal_value seed)" \
        --comm-r "$(seal_value comm_r)" --comm-d "$(seal_value comm_d)" --proof "$1" 2>&1) || true
    echo "$verdict"
    [[ $verdict == valid ]] || { echo "FAIL: verify-seal $1: $verdict"; exit 1; }
}

step "up (API on the default unix://$dir/rt/cuzk.sock)"
started=1
"$cuzk" up --config "$config"
"$client" --addr "unix://$dir/rt/cuzk.sock" --c1 "$dir/sector/c1.json" --seal "$dir/sector/seal.json" \
    --c1-v1 "$dir/v1/c1.json" --seal-v1 "$dir/v1/seal.json" --miner-id "$miner_id" --proof-out "$dir/proof.bin"
verify "$dir/proof.bin"

# Curio's "host:port" form: the API on loopback TCP, a port nothing listens on. The proof is made again under
# another request id: the first one's job, recovered from the journal, would be answered without proving.
port=$((20000 + $$ % 20000))
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
step "down, then up with [api] listen = \"127.0.0.1:$port\""
"$cuzk" down --config "$config"
printf '[api]\nlisten = "127.0.0.1:%d"\n' "$port" >>"$config"
"$cuzk" up --config "$config"
"$client" --addr "127.0.0.1:$port" --only prove --request-id "porep-$miner_id-$sector_id-tcp" \
    --c1 "$dir/sector/c1.json" --seal "$dir/sector/seal.json" \
    --miner-id "$miner_id" --proof-out "$dir/proof-tcp.bin"
verify "$dir/proof-tcp.bin"
step "passed"
