// Renders GET /docs: Redoc's standalone bundle (loaded before this script) draws the OpenAPI document
// that the page carries inline, so the browser fetches nothing but the page's own two scripts.
(() => {
  const spec = JSON.parse(document.getElementById('openapi').textContent);
  // Redoc's options: https://redocly.com/docs/redoc/config (nothing here makes it load anything).
  Redoc.init(spec, { expandResponses: '200,201', jsonSampleExpandLevel: 3, hideHostname: true }, document.getElementById('redoc'));
})();
