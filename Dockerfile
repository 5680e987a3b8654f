# The sqsq endpoint (cmd/sqsq) as a container image: one static binary on an
# empty base, run as a non-root user. The binary is built beforehand, on the
# host, for the image's architecture (TARGETARCH, which docker buildx and
# podman set; amd64 when a builder does not):
#
#   build/dist.sh linux/amd64 linux/arm64     # or: build/dist.sh (all six)
#   docker build -t sqsq .                    # podman build --format docker -t sqsq .
#   docker run --rm -p 9324:9324 sqsq         # SQS on http://localhost:9324
#
# podman needs --format docker for the HEALTHCHECK: the OCI image format has
# no health checks, and podman drops them with a warning.
FROM scratch

ARG TARGETARCH
ARG VERSION=dev
LABEL org.opencontainers.image.title="sqsq" \
      org.opencontainers.image.description="Amazon SQS emulator: an SQS endpoint in memory, on a real or virtual clock" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}"

COPY dist/sqsq_linux_${TARGETARCH} /sqsq

# 65532: the conventional "nonroot" uid and gid of distroless images. The
# server writes no file, so it needs no home and no writable path.
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
