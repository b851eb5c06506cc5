# logging: levels, the logger hierarchy, basicConfig and handlers writing to
# stdout, %-style messages, and records that go to stderr (not in stdout).
import logging
import sys

import jax.numpy as jnp

x = jnp.arange(3.0)  # JAX starts its backend (and logs about it) here
logging.warning("to stderr, which the output does not hold: %d", 3)
log = logging.getLogger("train")
print(log.name, log.level, log.getEffectiveLevel(), logging.getLevelName(20))
print(logging.getLevelName("ERROR"), logging.getLevelName(25))

logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format="%(levelname)-8s|%(name)s|%(message)s", force=True)
log.info("step %d loss %.3f", 7, 0.125)
log.debug("hidden: below INFO")
log.warning("array %s", x)
log.setLevel(logging.ERROR)
log.warning("hidden: the logger says ERROR")
log.error("kept: %(a)s and %(b)s", {"a": 1, "b": "two"})
print(log.isEnabledFor(logging.WARNING), log.isEnabledFor(logging.CRITICAL))

child = logging.getLogger("train.data")
print(child.getEffectiveLevel(), child.hasHandlers())
child.critical("from the child, through the root's handler")

h = logging.StreamHandler(sys.stdout)
h.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
other = logging.getLogger("other")
other.addHandler(h)
other.warning("twice: own handler and the root's")
other.removeHandler(h)
other.warning("once")

logging.disable(logging.WARNING)
logging.warning("hidden: disabled")
logging.error("kept after disable")
logging.log(logging.CRITICAL, "via log(): %s", "ok")
result = log.getEffectiveLevel()
