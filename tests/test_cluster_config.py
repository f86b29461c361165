"""``[cluster]`` and ``--cluster``: read and checked without loading the Redis client."""

from __future__ import annotations

import pytest

from ficsfen.server.config import Config, ConfigError, cluster_url, from_mapping
from ficsfen.server.serve import main


def test_defaults_are_alone() -> None:
    config = Config()
    assert config.cluster_url is None and config.cluster_node == ""
    assert (config.heartbeat_interval, config.heartbeat_timeout) == (2.0, 10.0)


def test_settings_are_read() -> None:
    config = from_mapping({"cluster": {"url": "redis://10.0.0.5:6380/1", "node": "eu-1",
                                       "namespace": "chess", "heartbeat_interval": 1,
                                       "heartbeat_timeout": 4.5}})
    assert config.cluster_url == "redis://10.0.0.5:6380/1" and config.cluster_node == "eu-1"
    assert config.cluster_namespace == "chess" and config.heartbeat_timeout == 4.5
    assert from_mapping({"cluster": {"url": ""}}).cluster_url is None
    assert cluster_url("None") is None and cluster_url("unix:///run/r.sock") == "unix:///run/r.sock"
    assert Config().with_cluster("redis://h").cluster_url == "redis://h"


@pytest.mark.parametrize("cluster, english, french", [
    ({"url": "http://x"}, "expected a Redis URL", "une URL de Redis"),
    ({"node": "a b"}, "a name of at most 64 letters", "un nom d’au plus 64"),
    ({"heartbeat_interval": 0}, "a number of seconds above 0", "supérieur à 0"),
    ({"heartbeat_interval": 5, "heartbeat_timeout": 5},
     "heartbeat_timeout must be longer than heartbeat_interval", "doit être plus long"),
])
def test_mistakes_are_reported_in_both_languages(cluster, english, french) -> None:
    with pytest.raises(ConfigError) as raised:
        from_mapping({"cluster": cluster})
    assert english in raised.value.render("en") and french in raised.value.render("fr")


def test_a_bad_cluster_option_is_refused(capsys) -> None:
    assert main(["--cluster", "nats://x"], lang="en") == 2
    assert "--cluster nats://x: not a Redis URL" in capsys.readouterr().err
