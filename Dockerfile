# syntax=docker/dockerfile:1
# Multi-stage build of the gpusched binaries with the same step as a release
# (`make release-bin`: the static CLI gpusched, and gpusched-server with cgo,
# so NVML is compiled in; -trimpath; version, commit and build date stamped
# in). The runtime image holds both binaries and CA certificates and runs as
# an unprivileged user; `gpusched serve` (and user, token, migrate) run
# gpusched-server in its place, the health probe is the small client.
#   docker build --build-arg VERSION=$(git describe --tags --always) --build-arg COMMIT=$(git rev-parse HEAD) .

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN make release-bin VERSION="${VERSION}" COMMIT="${COMMIT}"

FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin gpusched
COPY --from=build /src/bin/gpusched /src/bin/gpusched-server /usr/local/bin/
USER gpusched
EXPOSE 8080
ENV GPUSCHED_LISTEN=0.0.0.0:8080 GPUSCHED_LOG_FORMAT=json
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["gpusched", "healthcheck"]
ENTRYPOINT ["gpusched"]
CMD ["serve"]
