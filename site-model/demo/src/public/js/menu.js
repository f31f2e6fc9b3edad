// Opens and closes the mobile menu; keeps aria-expanded in step for screen readers.
document.addEventListener('DOMContentLoaded', () => {
  const button = document.querySelector('[data-menu-toggle]');
  const menu = document.getElementById('main-menu');
  if (!button || !menu) {
    return;
  }
  button.addEventListener('click', () => {
    const open = button.getAttribute('aria-expanded') === 'true';
    button.setAttribute('aria-expanded', String(!open));
    menu.hidden = open;
  });
});
