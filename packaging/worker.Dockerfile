# syntax=docker/dockerfile:1
# The ejob worker image: CUDA runtime + NCCL + PyTorch, with ejob-agent as the entrypoint.
#
# The ElasticJob controller runs this image with
#   --rdzv_backend=etcd --rdzv_endpoint=<job>-etcd-service:2379 --rdzv_id=<job> --nnodes=MIN:MAX
# prepended to the container args (then --nproc_per_node=…, the script and its args), exactly
# as it would for `python -m torch.distributed.run`; ejob-agent accepts the same command line.
#
# /dev/shm: PyTorch DataLoader workers pass batches through shared memory and NCCL uses it for
# intra-node transport. Docker and Kubernetes give containers only 64 MiB there, which makes
# NCCL fail ("unhandled system error") and DataLoader workers die with bus errors. The ejob
# chart mounts an emptyDir with `medium: Memory` and a size limit at /dev/shm (`dshm` volume);
# with plain Docker use `--shm-size=8g` (or `--ipc=host`). Size it at least a few GiB per GPU.
#
# Supported base images: any x86-64 Linux image with glibc 2.31 or newer (Debian 11+, Ubuntu
# 20.04+, RHEL/Rocky 9, nvidia/cuda and pytorch/pytorch images). ejob-agent is linked fully
# static (no shared library, no glibc symbol versions: tests/agent/old_glibc_it.py runs it in a
# Debian 11 minbase root); what the image must bring is the worker's own: Python and PyTorch.
#
# Build from the repository root:
#   docker build -f packaging/worker.Dockerfile -t ejob-worker:0.1.0 .

ARG CUDA_IMAGE=nvidia/cuda:12.6.3-cudnn-runtime-ubuntu24.04

# ---- stage 1: build ejob-agent (static: libssl-dev brings the OpenSSL archives it links) ----
FROM ubuntu:24.04 AS agent-build
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y --no-install-recommends \
      g++ cmake ninja-build pkg-config ca-certificates \
      libcli11-dev libyaml-cpp-dev libcurl4-openssl-dev libssl-dev nlohmann-json3-dev \
      libre2-dev libvalijson-dev libfmt-dev libtomlplusplus-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The build directory lies outside the copied tree, so a local build/ folder cannot clash.
COPY . /src
RUN cmake -S /src -B /opt/ejob-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEJOB_TESTS=OFF \
    && cmake --build /opt/ejob-build --target ejob-agent \
    && strip /opt/ejob-build/ejob-agent \
    && /opt/ejob-build/ejob-agent --help > /dev/null

# ---- stage 2: the worker image ----
FROM ${CUDA_IMAGE} AS worker
ENV DEBIAN_FRONTEND=noninteractive
# The CUDA runtime image already carries libnccl2; ejob-agent needs no library.
# ca-certificates: an etcd over HTTPS with a public CA (the agent reads /etc/ssl/certs).
RUN apt-get update && apt-get install -y --no-install-recommends \
      python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# PyTorch (CUDA 12.4 build; it bundles its own NCCL as nvidia-nccl-cu12) in a venv, since
# Ubuntu 24.04's Python is externally managed.
RUN python3 -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir torch==2.5.1 \
         --index-url https://download.pytorch.org/whl/cu124
ENV PATH=/opt/venv/bin:$PATH \
    PYTHON_EXEC=/opt/venv/bin/python \
    NCCL_ASYNC_ERROR_HANDLING=1
COPY --from=agent-build /opt/ejob-build/ejob-agent /usr/local/bin/ejob-agent
# The agent must start in this image: the build stops here, not the first pod, if it does not.
RUN /usr/local/bin/ejob-agent --version
RUN useradd --create-home --uid 1000 --shell /bin/bash worker
USER 1000:1000
WORKDIR /home/worker
ENTRYPOINT ["/usr/local/bin/ejob-agent"]
CMD ["--help"]
