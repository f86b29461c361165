# Container image of the ficsfen chess server (docs/operations.md, "Container").
#
#     docker build -t ficsfen .
#     docker run -d --name ficsfen -p 5000:5000 -p 127.0.0.1:8080:8080 \
#         -v ficsfen-data:/var/lib/ficsfen ficsfen
#
# Telnet on 5000, the web side on 8080 (publish it on the host's loopback for
# a reverse proxy with TLS), the data file in the volume /var/lib/ficsfen.
# Arguments after the image name replace CMD: `docker run --rm ficsfen
# --version`, `docker run --rm ficsfen serve --print-config`.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The package from this checkout (.dockerignore keeps virtual environments,
# caches and git out), installed system-wide, then its source removed.
COPY . /tmp/ficsfen-src
RUN pip install /tmp/ficsfen-src \
    && rm -rf /tmp/ficsfen-src \
    && useradd --system --user-group --uid 10001 --home-dir /var/lib/ficsfen --no-create-home \
        --shell /usr/sbin/nologin ficsfen \
    && mkdir -p /var/lib/ficsfen \
    && chown ficsfen:ficsfen /var/lib/ficsfen \
    && chmod 0700 /var/lib/ficsfen

# Not root: the server needs its data folder and two unprivileged ports.
USER ficsfen
WORKDIR /var/lib/ficsfen
VOLUME ["/var/lib/ficsfen"]
EXPOSE 5000 8080

# SIGTERM (docker stop) adjourns the games in progress and closes the data
# file; give it time: docker stop --time 30 (the default 10 s is usually enough).
STOPSIGNAL SIGTERM

# Healthy when a guest can log in and gets the prompt.
HEALTHCHECK --interval=30s --timeout=15s --start-period=20s --retries=3 \
    CMD ["python", "-m", "ficsfen.server.healthcheck", "--port", "5000", "--timeout", "10"]

# Inside the container the server listens on every interface (0.0.0.0):
# which of them the host opens is docker run's -p.
ENTRYPOINT ["ficsfen"]
CMD ["serve", "--listen", "tcp:5000:interface=0.0.0.0", "--web", "tcp:8080:interface=0.0.0.0", \
     "--data", "/var/lib/ficsfen/ficsfen.sqlite3"]
