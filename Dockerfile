# The sqsq endpoint (cmd/sqsq) as a container image: one static binary on an
# empty base, run as a non-root user. By default the binary is one built
# beforehand, on the host, for the image's architecture (TARGETARCH, which
# docker buildx, BuildKit and podman set):
#
#   build/dist.sh linux/amd64                 # linux/arm64 for an arm64 image
#   docker build -t sqsq .                    # podman build --format docker -t sqsq .
#   docker run --rm -p 9324:9324 sqsq         # SQS on http://localhost:9324
#
# or, with only docker, compiled by a Go builder stage:
#
#   docker build --target from-source -t sqsq .
#
# podman needs --format docker for the HEALTHCHECK: the OCI image format has
# no health checks, and podman drops them with a warning. CI builds the
# default (prebuilt) image and checks it (build/image-check.sh); it cannot
# build from-source, whose golang base it cannot pull, but checks that the
# build context holds what `go build ./cmd/sqsq` needs.

# What both ways share: everything but the binary.
FROM scratch AS base
ARG VERSION=dev
LABEL org.opencontainers.image.title="sqsq" \
      org.opencontainers.image.description="Amazon SQS emulator: an SQS endpoint in memory, on a real or virtual clock" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}"
# 65532: the conventional "nonroot" uid and gid of distroless images. The
# server writes no file but with -data: /data is the user's, and a volume
# mounted there starts out the user's too (docker copies an image
# directory's owner into a new named volume), for -data /data.
COPY --chown=65532:65532 build/data/ /data/
USER 65532:65532
EXPOSE 9324
# Every interface: the container's port is reached through its network.
# The browser protections stay on: requests through a published port carry
# Host localhost:9324 and pass; other containers naming this one by a
# Compose service name need that name allowed, as in
#   command: ["-addr", "0.0.0.0:9324", "-allow-host", "sqsq"]
ENTRYPOINT ["/sqsq"]
CMD ["-addr", "0.0.0.0:9324"]
# No curl in an empty image: the binary asks its own GET /_sqsq/health (on
# 127.0.0.1:9324) and exits 0 or 1 within 3 s.
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
    CMD ["/sqsq", "-healthcheck", "-addr", "0.0.0.0:9324"]

# The Go builder of from-source, cross-compiling on the build machine's
# platform. Built only for that target: builders skip stages the target
# does not need.
FROM --platform=$BUILDPLATFORM docker.io/library/golang:1.24 AS build
ARG TARGETARCH
ARG VERSION=dev
WORKDIR /src
COPY . .
RUN CGO_ENABLED=0 GOOS=linux GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/sqsq ./cmd/sqsq

FROM base AS from-source
COPY --from=build /out/sqsq /sqsq

# The default image (the last stage): the binary of build/dist.sh.
FROM base AS prebuilt
ARG TARGETARCH
COPY dist/sqsq_linux_${TARGETARCH} /sqsq
