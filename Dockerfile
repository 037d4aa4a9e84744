# One image for every role: `serve --api`, `serve --worker`, `serve --verify`, `migrate` and the CLI
# (docs/operations.md, "Image"). Build with scripts/image.sh, or:
#   docker build -t attestation-service .
# Behind a TLS-inspecting proxy, hand the build its CA: --secret id=npm-ca,src=/path/to/ca.pem

FROM node:24-bookworm-slim AS build
ENV CI=true PRISMA_HIDE_UPDATE_MESSAGE=1
WORKDIR /src
RUN --mount=type=secret,id=npm-ca,required=false \
    if [ -s /run/secrets/npm-ca ]; then export npm_config_cafile=/run/secrets/npm-ca; fi; \
    npm install --global --no-fund --no-audit --loglevel=error pnpm@10.34.9
# the dependencies first, from the manifests alone: a change to the sources does not download them again
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY patches/ patches/
COPY packages/client/package.json packages/client/
COPY packages/dashboard/package.json packages/dashboard/
COPY packages/protocol/package.json packages/protocol/
COPY packages/server/package.json packages/server/
COPY packages/service/package.json packages/service/
COPY packages/verify-web/package.json packages/verify-web/
COPY examples/package.json examples/
RUN --mount=type=secret,id=npm-ca,required=false \
    if [ -s /run/secrets/npm-ca ]; then export npm_config_cafile=/run/secrets/npm-ca NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca; fi; \
    pnpm install --frozen-lockfile --reporter=append-only
COPY . .
# the SDK (the verification app reads the API with it) and the dashboard's static files; then the runtime alone, in
# /app (scripts/runtime-tree.sh). The types generated from schema.prisma are for the compiler: Node strips them.
RUN pnpm --silent --filter @attestation-service/client build >/dev/null \
 && pnpm --silent --filter @attestation-service/dashboard build >/dev/null \
 && scripts/runtime-tree.sh /app

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/home/node/data
COPY --from=build /app /app
RUN ln -s /app/packages/service/bin/attestation-service.mjs /usr/local/bin/attestation-service
USER node
WORKDIR /app
# the API, the verification app, the worker's health endpoint
EXPOSE 8080 8081 8082
ENTRYPOINT ["attestation-service"]
CMD ["serve"]
