// "Download as JAX": the program with a prelude that makes real JAX on a
// CPU show the same number of devices.
export function asJax(code, devices) {
  const prelude =
    '# Run with JAX on CPU: XLA_FLAGS gives it ' + devices + ' host devices.\n' +
    'import os\n' +
    `os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=${devices}"\n\n`;
  return prelude + code;
}

export function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/x-python' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
