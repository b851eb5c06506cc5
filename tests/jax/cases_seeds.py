"""The worked examples of the seed documents (shard_map psum, pmap with
axis_name, shard_map vs vmap), 8-device versions, and the Problem functions.

Worked examples are kept exactly as written; only a final ``result = ...``
line is appended so the value can be recorded.  Where an example raises in
this JAX version, the error is recorded and a minimally corrected variant
follows.
"""

import textwrap

from fixturelib import program

SEED000_EXAMPLE = '''\
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec
from jax.experimental.shard_map import shard_map

devices = np.array(jax.devices()[:1])
mesh = Mesh(devices, ('data',))

def per_shard(y):
    return jax.lax.psum(jnp.sum(y), axis_name='data')

f = shard_map(per_shard, mesh=mesh,
              in_specs=PartitionSpec('data'),
              out_specs=PartitionSpec())
print(f(jnp.array([1.0, 2.0, 3.0])))  # 6.0
'''

SEED002_EXAMPLE1 = '''\
import jax
import jax.numpy as jnp
from jax import lax, pmap

# Define a function to be mapped
def scaled_sum(x):
    # Perform some computation
    scaled_x = x * 2.0
    # Sum the results across the devices participating in the pmap
    # Explicitly name the axis for the collective operation
    total_sum = lax.psum(scaled_x, axis_name='devices')
    return total_sum

# Number of devices
n_devices = jax.local_device_count()
print(f"Using {n_devices} devices.")

# Create some input data, sharded across devices
data = jnp.arange(n_devices, dtype=jnp.float32)

# Apply pmap, providing the axis_name 'devices'
# This name binds the string 'devices' to the mapped axis (axis 0 of the input)
parallel_computation = pmap(scaled_sum, axis_name='devices')

# Run the computation
result = parallel_computation(data)

print("Input data:", data)
# The result should be the same on all devices: sum(input * 2)
# Example: If data=[0., 1.], result=[2., 2.] because sum(0*2 + 1*2) = 2
# Example: If data=[0., 1., 2., 3.], result=[12., 12., 12., 12.] because sum(0*2 + 1*2 + 2*2 + 3*2) = 12
print("Result (same on all devices):", result)

# Verify the sum manually
expected_sum = jnp.sum(data * 2.0)
print("Expected sum:", expected_sum)
# Note: The output 'result' will be replicated across all devices.
# Accessing result[0] gives the computed total sum.
assert jnp.allclose(result[0], expected_sum)
'''

SEED002_EXAMPLE2 = '''\
import jax
import jax.numpy as jnp
from jax import lax, pmap, grad

# Dummy loss function (e.g., mean squared error)
def loss_fn(params, local_batch):
    # Replace with actual model computation and loss
    predictions = params['w'] * local_batch['x'] + params['b']
    error = predictions - local_batch['y']
    return jnp.mean(error**2)

# Function to compute gradients on one device
def compute_gradients(params, local_batch):
    return grad(loss_fn)(params, local_batch)

# Update step including gradient averaging
def parallel_update_step(params, sharded_batch):
    # Compute gradients locally on each device
    local_grads = compute_gradients(params, sharded_batch)
    # Average gradients across devices using the named axis 'data_parallel_axis'
    # Using pmean directly averages. Using psum and dividing later also works.
    avg_grads = lax.pmean(local_grads, axis_name='data_parallel_axis')
    # Simple gradient descent update (could be replaced with Adam, etc.)
    learning_rate = 0.01
    # Note: In a real scenario, use jax.tree_map for arbitrary pytree structures
    new_params = {
        'w': params['w'] - learning_rate * avg_grads['w'],
        'b': params['b'] - learning_rate * avg_grads['b']
    }
    return new_params

# Get number of devices
n_devices = jax.local_device_count()

# Initialize dummy parameters (same on all devices initially)
params = {'w': jnp.ones(()), 'b': jnp.zeros(())}

# Create dummy data sharded across devices
# Shape: (n_devices, batch_per_device, ...)
xs = jnp.arange(n_devices * 4, dtype=jnp.float32).reshape((n_devices, 4, 1))
ys = (xs * 2.0) + 0.5 # True w=2.0, b=0.5
sharded_batch = {'x': xs, 'y': ys}

# Define the parallel update function using pmap with an axis name
p_update_step = pmap(parallel_update_step, axis_name='data_parallel_axis')

# Execute one update step
new_params = p_update_step(params, sharded_batch)

# The parameters are updated based on the average gradient across all devices
# new_params will be replicated across devices. Access params on one device:
print("Original params:", params)
print("Updated params (on device 0):", jax.tree_map(lambda x: x[0], new_params))
'''

SEED003_EXAMPLE = '''\
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec
from jax.experimental.shard_map import shard_map

x = jnp.array([[1.0, 2.0], [3.0, 4.0]]) # shape (2, 2)

# vmap: per-row max
vmap_result = jax.vmap(jnp.max)(x) # [2., 4.]

# shard_map: same per-row max
devices = np.array(jax.devices()[:1])
mesh = Mesh(devices, ('data',))

def per_shard(rows):
    return jax.vmap(jnp.max)(rows)

sm_result = shard_map(per_shard, mesh=mesh,
              in_specs=PartitionSpec('data'),
              out_specs=PartitionSpec('data'))(x)
jnp.allclose(sm_result, vmap_result) # True
'''


def verbatim(text, tail):
    return text + "\n" + textwrap.dedent(tail).strip("\n") + "\n"


def cases():
    out = []
    out.append({
        "name": "seed000_worked_example",
        "note": "seed 000 worked example as written (1-device mesh); result line appended",
        "source": verbatim(SEED000_EXAMPLE, "result = f(jnp.array([1.0, 2.0, 3.0]))"),
        "inputs": [],
    })
    out.append({
        "name": "seed000_worked_example_8_devices",
        "note": "seed 000 worked example with the mesh over all 8 devices and x = arange(16)",
        "source": program("""
            from jax.experimental.shard_map import shard_map

            devices = np.array(jax.devices()[:8])
            mesh = Mesh(devices, ('data',))

            def per_shard(y):
                return jax.lax.psum(jnp.sum(y), axis_name='data')

            f = shard_map(per_shard, mesh=mesh,
                          in_specs=P('data'),
                          out_specs=P())
            x = jnp.arange(16, dtype=jnp.float32)
            result = f(x)
            """),
        "inputs": ["x"],
    })
    out.append({
        "name": "seed000_worked_example_8_devices_no_psum",
        "note": "the pitfall: without psum each device returns its partial sum",
        "source": program("""
            devices = np.array(jax.devices()[:8])
            mesh = Mesh(devices, ('data',))
            x = jnp.arange(16, dtype=jnp.float32)
            f = jax.shard_map(lambda y: jnp.reshape(jnp.sum(y), (1,)), mesh=mesh,
                              in_specs=P('data'), out_specs=P('data'))
            result = f(x)
            """),
        "inputs": ["x"],
    })
    out.append({
        "name": "seed002_example1_pmap_psum",
        "note": "seed 002 first example as written; it uses every local device (8 here)",
        "source": SEED002_EXAMPLE1,
        "inputs": ["data"],
    })
    out.append({
        "name": "seed002_example1_pmap_psum_1_device",
        "note": "seed 002 first example on a single device",
        "source": program("""
            from jax import lax, pmap

            def scaled_sum(x):
                return lax.psum(x * 2.0, axis_name='devices')

            data = jnp.arange(1, dtype=jnp.float32)
            result = pmap(scaled_sum, axis_name='devices', devices=jax.devices()[:1])(data)
            """),
        "inputs": ["data"],
    })
    out.append({
        "name": "seed002_example2_as_written",
        "note": "raises: pmap maps the scalar params over axis 0 (in_axes=0 for every argument)",
        "source": SEED002_EXAMPLE2,
        "inputs": ["params", "sharded_batch"],
        "expect_error": True,
    })
    out.append({
        "name": "seed002_example2_tree_map_only_fixed",
        "note": "jax.tree_map replaced by jax.tree_util.tree_map; still raises (scalar params under in_axes=0)",
        "source": SEED002_EXAMPLE2.replace(
            'jax.tree_map(lambda x: x[0], new_params)',
            'jax.tree_util.tree_map(lambda x: x[0], new_params)'),
        "inputs": ["params", "sharded_batch"],
        "expect_error": True,
    })
    corrected = SEED002_EXAMPLE2.replace(
        "p_update_step = pmap(parallel_update_step, axis_name='data_parallel_axis')",
        "p_update_step = pmap(parallel_update_step, axis_name='data_parallel_axis', in_axes=(None, 0))",
    ).replace(
        'jax.tree_map(lambda x: x[0], new_params)',
        'jax.tree_util.tree_map(lambda x: x[0], new_params)')
    assert corrected.count("in_axes=(None, 0)") == 1
    out.append({
        "name": "seed002_example2_corrected",
        "note": "minimal fix: in_axes=(None, 0) so params are broadcast, and jax.tree_util.tree_map",
        "source": verbatim(corrected, "result = new_params"),
        "inputs": ["params", "sharded_batch"],
    })
    out.append({
        "name": "seed003_worked_example",
        "note": "seed 003 worked example as written (1-device mesh); result line appended",
        "source": verbatim(SEED003_EXAMPLE, """
            result = {'vmap_result': vmap_result, 'sm_result': sm_result,
                      'allclose': jnp.allclose(sm_result, vmap_result)}
            """),
        "inputs": ["x"],
    })
    out.append({
        "name": "seed003_worked_example_8_devices",
        "note": "seed 003 worked example with the mesh over all 8 devices and 8 rows",
        "source": program("""
            from jax.experimental.shard_map import shard_map

            x = jnp.arange(16, dtype=jnp.float32).reshape(8, 2) % 5.0
            vmap_result = jax.vmap(jnp.max)(x)
            devices = np.array(jax.devices()[:8])
            mesh = Mesh(devices, ('data',))

            def per_shard(rows):
                return jax.vmap(jnp.max)(rows)

            sm_result = shard_map(per_shard, mesh=mesh,
                                  in_specs=P('data'),
                                  out_specs=P('data'))(x)
            result = {'vmap_result': vmap_result, 'sm_result': sm_result,
                      'allclose': jnp.allclose(sm_result, vmap_result)}
            """),
        "inputs": ["x"],
    })

    # ---- Problem functions
    psum_fn = """
        def shard_map_psum(x):
            mesh = Mesh(np.array(jax.devices()[:{n}]), ('data',))

            def per_shard(y):
                local = jnp.sum(y)
                return jax.lax.psum(local, axis_name='data')

            f = jax.shard_map(per_shard, mesh=mesh, in_specs=P('data'), out_specs=P())
            return f(x)
        """
    vs_fn = """
        def shard_map_vs_vmap(x):
            mesh = Mesh(np.array(jax.devices()[:{n}]), ('data',))

            def per_shard(rows):
                return jax.vmap(lambda r: jnp.sum(r ** 2))(rows)

            sm_result = jax.shard_map(per_shard, mesh=mesh, in_specs=P('data'), out_specs=P('data'))(x)
            vmap_result = jax.vmap(lambda r: jnp.sum(r ** 2))(x)
            return jnp.stack([sm_result, vmap_result], axis=0)
        """
    psum_inputs = [
        ("documented", "x = jnp.array([1.0, 2.0, 3.0])", 1),
        ("random0", "x = jnp.asarray(np.round(np.random.default_rng(0).normal(size=5), 3).astype(np.float32))", 1),
        ("random1", "x = jnp.asarray(np.round(np.random.default_rng(1).normal(size=8), 3).astype(np.float32))", 1),
        ("random2", "x = jnp.asarray(np.round(np.random.default_rng(2).normal(size=16), 3).astype(np.float32))", 1),
        ("random2_8_devices", "x = jnp.asarray(np.round(np.random.default_rng(2).normal(size=16), 3).astype(np.float32))", 8),
    ]
    for tag, xline, n in psum_inputs:
        out.append({
            "name": f"seed000_problem_shard_map_psum_{tag}",
            "source": program(psum_fn.replace("{n}", str(n)) + f"""
        {xline}
        result = shard_map_psum(x)
        """),
            "inputs": ["x"],
        })
    vs_inputs = [
        ("documented", "x = jnp.array([[1.0, 0.0], [0.0, 1.0]])", 1),
        ("random0", "x = jnp.asarray(np.round(np.random.default_rng(0).normal(size=(3, 2)), 3).astype(np.float32))", 1),
        ("random1", "x = jnp.asarray(np.round(np.random.default_rng(1).normal(size=(4, 3)), 3).astype(np.float32))", 1),
        ("random2", "x = jnp.asarray(np.round(np.random.default_rng(2).normal(size=(8, 2)), 3).astype(np.float32))", 1),
        ("random2_8_devices", "x = jnp.asarray(np.round(np.random.default_rng(2).normal(size=(8, 2)), 3).astype(np.float32))", 8),
    ]
    for tag, xline, n in vs_inputs:
        out.append({
            "name": f"seed003_problem_shard_map_vs_vmap_{tag}",
            "source": program(vs_fn.replace("{n}", str(n)) + f"""
        {xline}
        result = shard_map_vs_vmap(x)
        """),
            "inputs": ["x"],
        })
    return out
