# syntax=docker/dockerfile:1
# Multi-stage build of the gpusched binary; the runtime image holds only the
# binary and CA certificates and runs as an unprivileged user.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/gpusched ./cmd/gpusched

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin gpusched
COPY --from=build /out/gpusched /usr/local/bin/gpusched
USER gpusched
EXPOSE 8080
ENV GPUSCHED_LISTEN=0.0.0.0:8080
ENTRYPOINT ["gpusched"]
CMD ["serve"]
