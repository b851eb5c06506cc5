// Makes the page cross-origin isolated where the host did not: registers
// coi-serviceworker.js and reloads once when it starts controlling the page.
// Lockstep mode works either way; this only unlocks parallel mode.
const FLAG = 'shardlab-coi-reload';

if (!self.crossOriginIsolated && 'serviceWorker' in navigator && self.isSecureContext) {
  const url = new URL('../coi-serviceworker.js', import.meta.url);
  navigator.serviceWorker.register(url).then((reg) => {
    if (navigator.serviceWorker.controller) return; // controlled, but still not isolated: give up
    if (sessionStorage.getItem(FLAG)) return; // reloaded once already
    const reload = () => {
      sessionStorage.setItem(FLAG, '1');
      location.reload();
    };
    if (reg.active) reload();
    else navigator.serviceWorker.addEventListener('controllerchange', reload, { once: true });
  }, () => {});
} else if (self.crossOriginIsolated) {
  sessionStorage.removeItem(FLAG);
}
