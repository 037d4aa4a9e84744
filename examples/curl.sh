#!/usr/bin/env bash
# The quick start over REST with curl: create an off-chain attestation, read it back, search by content hash.
#   ATTESTATION_API_URL=http://127.0.0.1:8080 ATTESTATION_API_KEY=svc_free_… ./dev example curl [CONTENT]
set -euo pipefail
API="${ATTESTATION_API_URL:-http://127.0.0.1:8080}"
KEY="${ATTESTATION_API_KEY:?set ATTESTATION_API_KEY to a key from: attestation-service keys create --tier free}"
CONTENT="${1:-A poem I wrote myself.}"

body=$(CONTENT="$CONTENT" node -e 'process.stdout.write(JSON.stringify({ type: "human", content: process.env.CONTENT, contentType: "text/plain", mode: "offchain" }))')
created=$(curl -sS --fail-with-body "$API/v1/attestations" \
  -H "Authorization: Bearer $KEY" \
  -H 'Content-Type: application/json' \
  -H "Idempotency-Key: quickstart-$(date +%s%N)" \
  -d "$body")
uid=$(printf '%s' "$created" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).uid))')
echo "created $uid"

curl -sS --fail-with-body "$API/v1/attestations/$uid" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);console.log(`read back: ${r.type}, ${r.mode}, content hash ${r.contentHash}`)})'

hash=$(printf '%s' "$CONTENT" | sha256sum | cut -d' ' -f1)
curl -sS --fail-with-body "$API/v1/attestations?hash=$hash&limit=5" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const p=JSON.parse(s);console.log(`search found ${p.data.length} attestation(s) of this content`)})'
