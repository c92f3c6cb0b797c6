// Network, else SHELL (set by the server).
const CACHE = `shell-${VERSION}`;
// Kept, it takes over at once: what pages are given is what is kept offline (twice: it may be deferred).
addEventListener('install', (event) => event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(skipWaiting).then(() => setTimeout(skipWaiting, 5e3))));
addEventListener('activate', (event) =>
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => clients.claim()),
  ),
);
addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  const page = request.mode === 'navigate' && !url.pathname.startsWith('/api/');
  if (request.method !== 'GET' || url.origin !== location.origin || !(page || SHELL.includes(url.pathname))) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        const copy = response.clone();
        if (response.ok && !page) caches.open(CACHE).then((cache) => cache.put(request, copy));
        return response;
      })
      .catch(() => caches.match(page ? '/' : request).then((kept) => kept ?? Response.error())),
  );
});
