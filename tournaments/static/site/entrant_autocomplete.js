'use strict';
// A season entrant's version picker (tournaments/site/season_admin.py, EntrantVersionSelect):
// Django's autocomplete, which also sends the game chosen in the form as it is when the list
// opens, so only versions that may enter a season of that game are offered.
{
    const $ = django.jQuery;

    function start(element) {
        $(element).select2({
            width: '20em',
            ajax: {
                data: (params) => {
                    const game = document.getElementById('id_game');
                    return {
                        term: params.term,
                        page: params.page,
                        app_label: element.dataset.appLabel,
                        model_name: element.dataset.modelName,
                        field_name: element.dataset.fieldName,
                        game: game ? game.value : ''
                    };
                }
            }
        });
    }

    $(function() {
        // Not the empty row a new inline is copied from.
        $('.entrant-autocomplete').not('[name*=__prefix__]').each((i, element) => start(element));
    });

    document.addEventListener('formset:added', (event) => {
        $(event.target).find('.entrant-autocomplete').each((i, element) => start(element));
    });
}
